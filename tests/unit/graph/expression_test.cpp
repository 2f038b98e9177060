#include <doctest/doctest.h>

#include <map>

#include "sim/graph/expression.h"

using namespace roofsim;

namespace {
std::int64_t eval(std::string_view text) {
  static const std::map<std::string, std::int64_t, std::less<>> params = {
      {"batch", 8}, {"seq", 2048}, {"hidden", 12288}, {"heads", 96}, {"big", std::int64_t{1} << 40}};
  return evaluate_expression(text, [](std::string_view name) -> std::optional<std::int64_t> {
    const auto found = params.find(name);
    if (found == params.end()) return std::nullopt;
    return found->second;
  });
}
}  // namespace

TEST_CASE("expressions: integers, parameters, precedence and parentheses") {
  CHECK(eval("42") == 42);
  CHECK(eval("1_000") == 1000);
  CHECK(eval("batch*seq") == 16384);
  CHECK(eval("hidden/heads") == 128);
  CHECK(eval("2 + 3 * 4") == 14);
  CHECK(eval("(2 + 3) * 4") == 20);
  CHECK(eval("10 - 4 - 3") == 3);
  CHECK(eval("seq % 1000") == 48);
  CHECK(eval("-batch + 10") == 2);
  CHECK(eval("3 * hidden + 2 * 8 * (hidden / heads)") == 3 * 12288 + 2048);
}

TEST_CASE("expressions: floor division, cdiv, min and max") {
  CHECK(eval("7 / 2") == 3);
  CHECK(eval("-7 / 2") == -4);
  CHECK(eval("cdiv(7, 2)") == 4);
  CHECK(eval("cdiv(8, 2)") == 4);
  CHECK(eval("cdiv(seq, 128) * 128") == 2048);
  CHECK(eval("min(batch, seq)") == 8);
  CHECK(eval("max(batch, seq)") == 2048);
}

TEST_CASE("expressions: unknown names, division by zero, overflow and syntax errors are errors") {
  CHECK_THROWS_WITH_AS(eval("batch*sq"), doctest::Contains("unknown parameter 'sq'"), ExpressionError);
  CHECK_THROWS_WITH_AS(eval("seq / (batch - 8)"), doctest::Contains("division by zero"), ExpressionError);
  CHECK_THROWS_WITH_AS(eval("big * big"), doctest::Contains("overflows"), ExpressionError);
  CHECK_THROWS_AS(eval("2 +"), ExpressionError);
  CHECK_THROWS_AS(eval("(2 + 3"), ExpressionError);
  CHECK_THROWS_AS(eval("2 3"), ExpressionError);
  CHECK_THROWS_AS(eval("sqrt(4, 2)"), ExpressionError);
  CHECK_THROWS_AS(eval("2 ** 3"), ExpressionError);
}
