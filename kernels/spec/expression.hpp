// The expressions of a kernel spec (kernels/spec/spec.hpp): sizes, buffer lengths, launch
// geometry, constraints and the work model, parsed by muParser (Debian libmuparser-dev).
//
// Integer expressions (sizes, lengths, geometry, constraints) are evaluated exactly: muParser
// computes in double, so its built-in binary operators are replaced by checked integer ones
// (+ - * / % ^, comparisons, && ||) that refuse an operand that is not a whole number and any
// value past 2^53 (the largest a double holds exactly) instead of rounding it. `/` divides
// whole numbers towards zero; ceil_div(a, b) and round_up(a, b) are there for launch sizes;
// min, max and the ternary a ? b : c are muParser's own. Real expressions (the work model) are
// muParser's, in double.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace gpubench::spec {

// What is wrong with an expression, in words that name it ("`n * m` names `q`, which is ...").
// `in_text`: the text itself is wrong (empty, does not parse, names an unknown name), whatever
// the values; otherwise an evaluation failed at these values (a division by zero, past 2^53).
class ExpressionError : public std::runtime_error {
 public:
  explicit ExpressionError(const std::string& what, bool in_text = false)
      : std::runtime_error(what), in_text_(in_text) {}
  bool in_text() const { return in_text_; }

 private:
  bool in_text_;
};

// The largest value an integer expression may reach anywhere in its evaluation.
constexpr std::int64_t exact_limit = std::int64_t{1} << 53;

using IntVars = std::map<std::string, std::int64_t>;
using RealVars = std::map<std::string, double>;

// `text` evaluated over `vars` (names muParser accepts: letters, digits and _): an
// ExpressionError when it does not parse, names something `vars` lacks, divides by zero, holds
// a value that is not whole, or passes 2^53 (its own value or any step's).
std::int64_t eval_int(const std::string& text, const IntVars& vars);
// The same in double (the work model): an ExpressionError for a parse error, an unknown name, or
// a result that is not finite.
double eval_real(const std::string& text, const RealVars& vars);

}  // namespace gpubench::spec
