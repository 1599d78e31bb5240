// Catch2 claims of the steps-softmax steps of the derivation (see web/steps/order.js).
#include <catch2/catch.hpp>
