# Sanitizer and fuzzer builds (issue 15). Included before any target is defined, so that every
# target (runtime, bindings, eacu, tests) is built the same way.
#   -DEACU_SANITIZE=ON  AddressSanitizer + UndefinedBehaviorSanitizer (gcc or clang); any UB
#                       report aborts the program (-fno-sanitize-recover=all).
#   -DEACU_FUZZ=ON      the libFuzzer targets of tests/fuzz (clang only): the code under test is
#                       built with coverage instrumentation (-fsanitize=fuzzer-no-link).
# `make test-sanitize` and `make fuzz` configure build-san with both and clang.
option(EACU_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(EACU_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)
if(EACU_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(EACU_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "EACU_FUZZ needs clang (libFuzzer is clang's): configure with -DCMAKE_CXX_COMPILER=clang++-14, got ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
