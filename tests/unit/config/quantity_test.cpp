#include <doctest/doctest.h>

#include "sim/config/quantity.h"

using namespace roofsim;

TEST_CASE("byte sizes: decimal and binary prefixes") {
  CHECK(*parse_bytes("1B") == 1);
  CHECK(*parse_bytes("1KB") == 1000);
  CHECK(*parse_bytes("1kB") == 1000);
  CHECK(*parse_bytes("1KiB") == 1024);
  CHECK(*parse_bytes("2MB") == 2000000);
  CHECK(*parse_bytes("2MiB") == 2ULL * 1024 * 1024);
  CHECK(*parse_bytes("80GB") == 80000000000ULL);
  CHECK(*parse_bytes("80GiB") == 80ULL * 1024 * 1024 * 1024);
  CHECK(*parse_bytes("1TB") == 1000000000000ULL);
  CHECK(*parse_bytes("1TiB") == 1024ULL * 1024 * 1024 * 1024);
  CHECK(*parse_bytes("1.5KiB") == 1536);
  CHECK(*parse_bytes(" 64 KiB ") == 65536);
}

TEST_CASE("byte sizes: a missing or wrong unit, fractions and negatives are rejected") {
  CHECK_FALSE(parse_bytes("1024"));
  CHECK_FALSE(parse_bytes("1 GHz"));
  CHECK_FALSE(parse_bytes("0.5B"));
  CHECK_FALSE(parse_bytes("-4KiB"));
  CHECK_FALSE(parse_bytes("KiB"));
  CHECK_FALSE(parse_bytes("4 kib"));
}

TEST_CASE("bandwidth: bytes and bits per second") {
  CHECK(parse_quantity("3.35TB/s", QuantityKind::bandwidth)->value == doctest::Approx(3.35e12));
  CHECK(parse_quantity("1GiB/s", QuantityKind::bandwidth)->value == doctest::Approx(1073741824.0));
  CHECK(parse_quantity("100B/s", QuantityKind::bandwidth)->value == doctest::Approx(100.0));
  CHECK(parse_quantity("400Gb/s", QuantityKind::bandwidth)->value == doctest::Approx(50e9));
  CHECK(parse_quantity("400Gbps", QuantityKind::bandwidth)->value == doctest::Approx(50e9));
  CHECK(parse_quantity("3.2Gb/s", QuantityKind::bandwidth)->value == doctest::Approx(0.4e9));
  CHECK(parse_quantity("8Mbps", QuantityKind::bandwidth)->value == doctest::Approx(1e6));
  CHECK_FALSE(parse_quantity("3.35TB", QuantityKind::bandwidth));
  CHECK_FALSE(parse_quantity("3.35", QuantityKind::bandwidth));
}

TEST_CASE("frequency, time, power, energy, voltage") {
  CHECK(parse_quantity("1.98GHz", QuantityKind::frequency)->value == doctest::Approx(1.98e9));
  CHECK(parse_quantity("800MHz", QuantityKind::frequency)->value == doctest::Approx(8e8));
  CHECK(parse_quantity("10kHz", QuantityKind::frequency)->value == doctest::Approx(1e4));
  CHECK(parse_quantity("5Hz", QuantityKind::frequency)->value == doctest::Approx(5.0));
  CHECK(parse_quantity("2s", QuantityKind::time)->value == doctest::Approx(2.0));
  CHECK(parse_quantity("3ms", QuantityKind::time)->value == doctest::Approx(3e-3));
  CHECK(parse_quantity("4us", QuantityKind::time)->value == doctest::Approx(4e-6));
  CHECK(parse_quantity("14ns", QuantityKind::time)->value == doctest::Approx(14e-9));
  CHECK(parse_quantity("546.4ps", QuantityKind::time)->value == doctest::Approx(546.4e-12));
  const auto cycles = parse_quantity("30cycles", QuantityKind::time);
  CHECK(cycles->in_cycles);
  CHECK(cycles->value == doctest::Approx(30.0));
  CHECK(parse_quantity("700W", QuantityKind::power)->value == doctest::Approx(700.0));
  CHECK(parse_quantity("250mW", QuantityKind::power)->value == doctest::Approx(0.25));
  CHECK(parse_quantity("0.5pJ", QuantityKind::energy)->value == doctest::Approx(0.5e-12));
  CHECK(parse_quantity("2nJ", QuantityKind::energy)->value == doctest::Approx(2e-9));
  CHECK(parse_quantity("0.9V", QuantityKind::voltage)->value == doctest::Approx(0.9));
  CHECK(parse_quantity("750mV", QuantityKind::voltage)->value == doctest::Approx(0.75));
  CHECK_FALSE(parse_quantity("1.98", QuantityKind::frequency));
  CHECK_FALSE(parse_quantity("14", QuantityKind::time));
  CHECK_FALSE(parse_quantity("700", QuantityKind::power));
  CHECK_FALSE(parse_quantity("700W", QuantityKind::energy));
  CHECK_FALSE(parse_quantity("1e", QuantityKind::time));
}

TEST_CASE("exponents and SI formatting") {
  CHECK(parse_quantity("1e9Hz", QuantityKind::frequency)->value == doctest::Approx(1e9));
  CHECK(format_si(3.35e12, "B/s") == "3.35 TB/s");
  CHECK(format_si(989.4e12, "FLOP/s") == "989 TFLOP/s");
  CHECK(format_bytes(80ULL << 30) == "80 GiB");
}
