-- tdaudit configuration for cJSON (CMake + ctest; each test file is a Unity
-- program and one ctest test). "$@" carries a variant's args to cmake's
-- configure step. CMake keeps its cache between builds of one scratch tree,
-- so every option a variant changes is set here too, to its default value.
build   { "sh", "-c",
          "cmake -S . -B build -DENABLE_CJSON_TEST=On -DENABLE_CJSON_UTILS=Off " ..
          "-DENABLE_CUSTOM_COMPILER_FLAGS=On -DCMAKE_C_FLAGS= " ..
          "-DCMAKE_EXE_LINKER_FLAGS= -DCMAKE_SHARED_LINKER_FLAGS= \"$@\" >/dev/null " ..
          "&& cmake --build build -j2 >/dev/null", "build" }
runner  { list = { "sh", "-c", "ctest --test-dir build -N | sed -n 's/^ *Test *#[0-9]*: //p'" },
          run  = { "ctest", "--test-dir", "build", "-R", "^{test}$", "--no-tests=error",
                   "--output-on-failure" } }  -- without --no-tests=error, a name ctest
                                              -- does not know passes (exit 0)
sources { "cJSON.c", "cJSON.h" }
tests   { "tests/*.c", "tests/*.h", "tests/CMakeLists.txt", "tests/inputs/*" }
catalogues { "tdaudit/*.lua" }
timeout { factor = 10, floor = 10, build = 600 }

-- AddressSanitizer and UBSan, for the use-after-free and overflow fixes.
-- Not cJSON's ENABLE_SANITIZERS: its compiler-flag check drops
-- -fsanitize=address with GCC 12 (the check links without it). The
-- project's warning flags are off, so that old commits build too.
variant { name = "asan",
          args = { "-DENABLE_CUSTOM_COMPILER_FLAGS=Off",
                   "-DCMAKE_C_FLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer",
                   "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined",
                   "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" } }
