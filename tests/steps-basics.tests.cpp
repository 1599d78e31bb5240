// Catch2 claims of the steps-basics steps of the derivation (see web/steps/order.js).
#include <catch2/catch.hpp>
