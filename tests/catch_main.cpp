// Catch2's main(), alone in its translation unit: it compiles once in ~20 s, the tests in ~1 s.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
