#pragma once
// Integer expressions of workload parameters ("batch*seq", "hidden/heads", "cdiv(seq, 128)*128"), so that a sweep
// can change one parameter and every shape that depends on it follows. Exact 64-bit signed arithmetic; overflow,
// division by zero and unknown names are errors, never silent wrap-around.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace roofsim {

// Why an expression could not be evaluated; the caller turns it into an InputError naming the op and key.
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Resolves a parameter name to its value; returns nullopt for an unknown name.
using ParameterLookup = std::function<std::optional<std::int64_t>(std::string_view name)>;

// Grammar: expr = term {(+|-) term}; term = unary {(*|/|%) unary}; unary = [-|+] primary;
// primary = integer | name | name "(" expr {"," expr} ")" | "(" expr ")".
// `/` and `%` are floor division and remainder (operands are shape sizes, normally >= 0); functions:
// cdiv(a, b) = ceil(a / b), min(a, b), max(a, b).
[[nodiscard]] std::int64_t evaluate_expression(std::string_view text, const ParameterLookup& lookup);

}  // namespace roofsim
