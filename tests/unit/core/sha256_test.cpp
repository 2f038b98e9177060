// SHA-256 against the test vectors of NIST FIPS 180-4 (the "Example Algorithms" of the NIST CSRC examples) and the
// padding boundaries of section 5.1.1, cross-checked with coreutils' sha256sum.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/sha256.h"
#include "tests/support/test_paths.h"

using roofsim::sha256_file_hex;
using roofsim::sha256_hex;

TEST_CASE("SHA-256 of the FIPS 180-4 examples: empty, abc and the 448-bit two-block message") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(
      sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopq"
                 "rstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("SHA-256 of one million a (FIPS 180-4 long message) and across the 55 56 63 64 byte padding edges") {
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // sha256sum of printf 'a%.0s' {1..N}
  CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(sha256_hex(std::string(63, 'a')) == "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
  CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("SHA-256 of a file equals that of its bytes") {
  const auto dir = roofsim::test::scratch_dir("sha256_file");
  const auto file = roofsim::test::write_file(dir / "x.toml", "abc");
  CHECK(sha256_file_hex(file) == sha256_hex("abc"));
  CHECK_THROWS(sha256_file_hex(dir / "missing.toml"));
}
