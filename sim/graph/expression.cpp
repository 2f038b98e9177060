#include "sim/graph/expression.h"

#include <cctype>

namespace roofsim {

namespace {

class Parser {
 public:
  Parser(std::string_view text, const ParameterLookup& lookup) : text_(text), lookup_(lookup) {}

  std::int64_t parse() {
    const auto value = expr();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw ExpressionError(why + " at character " + std::to_string(pos_ + 1));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static std::int64_t checked(bool overflow, std::int64_t value) {
    if (overflow) throw ExpressionError("the value overflows a 64-bit integer");
    return value;
  }
  static std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    const bool overflow = __builtin_add_overflow(a, b, &r);
    return checked(overflow, r);
  }
  static std::int64_t sub(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    const bool overflow = __builtin_sub_overflow(a, b, &r);
    return checked(overflow, r);
  }
  static std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    const bool overflow = __builtin_mul_overflow(a, b, &r);
    return checked(overflow, r);
  }
  std::int64_t floor_div(std::int64_t a, std::int64_t b) const {
    if (b == 0) fail("division by zero");
    if (a == INT64_MIN && b == -1) throw ExpressionError("the value overflows a 64-bit integer");
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  std::int64_t floor_mod(std::int64_t a, std::int64_t b) const { return sub(a, mul(floor_div(a, b), b)); }

  std::int64_t expr() {
    auto value = term();
    for (;;) {
      if (accept('+')) {
        value = add(value, term());
      } else if (accept('-')) {
        value = sub(value, term());
      } else {
        return value;
      }
    }
  }

  std::int64_t term() {
    auto value = unary();
    for (;;) {
      if (accept('*')) {
        value = mul(value, unary());
      } else if (accept('/')) {
        value = floor_div(value, unary());
      } else if (accept('%')) {
        value = floor_mod(value, unary());
      } else {
        return value;
      }
    }
  }

  std::int64_t unary() {
    if (accept('-')) return sub(0, unary());
    if (accept('+')) return unary();
    return primary();
  }

  std::int64_t primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, a parameter or '(' but the expression ends");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const auto value = expr();
      if (!accept(')')) fail("expected ')'");
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      std::int64_t value = 0;
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
        if (text_[pos_] != '_') value = add(mul(value, 10), text_[pos_] - '0');
        ++pos_;
      }
      return value;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      const auto start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
        ++pos_;
      }
      const auto name = text_.substr(start, pos_ - start);
      if (accept('(')) return call(name);
      const auto value = lookup_(name);
      if (!value) throw ExpressionError("unknown parameter '" + std::string(name) + "'");
      return *value;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  std::int64_t call(std::string_view name) {
    const auto a = expr();
    if (!accept(',')) fail("expected ',' (" + std::string(name) + " takes two arguments)");
    const auto b = expr();
    if (!accept(')')) fail("expected ')'");
    if (name == "min") return a < b ? a : b;
    if (name == "max") return a > b ? a : b;
    if (name == "cdiv") return sub(0, floor_div(sub(0, a), b));
    throw ExpressionError("unknown function '" + std::string(name) + "' (known: cdiv, min, max)");
  }

  std::string_view text_;
  const ParameterLookup& lookup_;
  std::size_t pos_ = 0;
};

}  // namespace

std::int64_t evaluate_expression(std::string_view text, const ParameterLookup& lookup) {
  return Parser(text, lookup).parse();
}

}  // namespace roofsim
