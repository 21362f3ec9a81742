#include "kernels/spec/expression.hpp"

#include <muParser.h>

#include <cmath>
#include <set>
#include <vector>

namespace gpubench::spec {

namespace {

// The checked integer operators. They run inside muParser's evaluation, which has no room for
// context: what went wrong leaves as an exception of our own, caught in eval_int.
struct Refused {
  std::string why;
};

std::int64_t whole(double v, const char* op) {
  if (!std::isfinite(v) || v != std::floor(v))
    throw Refused{"an operand of `" + std::string(op) + "` is not a whole number (" + std::to_string(v) + ")"};
  if (std::fabs(v) > static_cast<double>(exact_limit))
    throw Refused{"an operand of `" + std::string(op) + "` is past 2^53"};
  return static_cast<std::int64_t>(v);
}

std::int64_t limit(std::int64_t r, bool overflowed, const char* op) {
  if (overflowed || r > exact_limit || r < -exact_limit)
    throw Refused{"a step (`" + std::string(op) + "`) passes 2^53, past which a double is not exact: refused, not rounded"};
  return r;
}

double add(double a, double b) {
  std::int64_t r = 0;
  const bool o = __builtin_add_overflow(whole(a, "+"), whole(b, "+"), &r);
  return static_cast<double>(limit(r, o, "+"));
}
double sub(double a, double b) {
  std::int64_t r = 0;
  const bool o = __builtin_sub_overflow(whole(a, "-"), whole(b, "-"), &r);
  return static_cast<double>(limit(r, o, "-"));
}
double mul(double a, double b) {
  std::int64_t r = 0;
  const bool o = __builtin_mul_overflow(whole(a, "*"), whole(b, "*"), &r);
  return static_cast<double>(limit(r, o, "*"));
}
double div(double a, double b) {
  const std::int64_t x = whole(a, "/"), y = whole(b, "/");
  if (y == 0) throw Refused{"a division by zero"};
  return static_cast<double>(x / y);
}
double mod(double a, double b) {
  const std::int64_t x = whole(a, "%"), y = whole(b, "%");
  if (y == 0) throw Refused{"a remainder by zero (`%`)"};
  return static_cast<double>(x % y);
}
double power(double a, double b) {
  const std::int64_t x = whole(a, "^"), y = whole(b, "^");
  if (y < 0) throw Refused{"a negative power (`^`) is not a whole number"};
  std::int64_t r = 1;
  for (std::int64_t i = 0; i < y && r != 0 && !(r == 1 && x == 1); ++i) {
    const bool o = __builtin_mul_overflow(r, x, &r);
    limit(r, o, "^");
  }
  return static_cast<double>(r);
}
double ceil_div(double a, double b) {
  const std::int64_t x = whole(a, "ceil_div"), y = whole(b, "ceil_div");
  if (y <= 0) throw Refused{"ceil_div by a divisor that is not positive"};
  if (x < 0) throw Refused{"ceil_div of a negative number"};
  return static_cast<double>(x / y + (x % y != 0));
}
double round_up(double a, double b) { return mul(ceil_div(a, b), b); }
double less(double a, double b) { return whole(a, "<") < whole(b, "<"); }
double greater(double a, double b) { return whole(a, ">") > whole(b, ">"); }
double less_eq(double a, double b) { return whole(a, "<=") <= whole(b, "<="); }
double greater_eq(double a, double b) { return whole(a, ">=") >= whole(b, ">="); }
double equal(double a, double b) { return whole(a, "==") == whole(b, "=="); }
double not_equal(double a, double b) { return whole(a, "!=") != whole(b, "!="); }
double both(double a, double b) { return whole(a, "&&") != 0 && whole(b, "&&") != 0; }
double either(double a, double b) { return whole(a, "||") != 0 || whole(b, "||") != 0; }

// Names the expression uses that `known` lacks: muParser asks the factory for each.
struct Unknown {
  std::set<std::string> names;
  std::vector<double> slots = std::vector<double>(64, 0.0);
  std::size_t used = 0;
};
double* collect_unknown(const char* name, void* data) {
  auto* u = static_cast<Unknown*>(data);
  u->names.insert(name);
  if (u->used == u->slots.size()) throw mu::ParserError("too many unknown names");
  return &u->slots[u->used++];
}

template <class Vars>
std::string known_list(const Vars& vars) {
  std::string s;
  for (const auto& [name, value] : vars) s += (s.empty() ? "" : ", ") + name;
  return s.empty() ? "none" : s;
}

// Parses `text` into `p` over `values` (one double per name, alive while p is), refusing names
// outside them.
template <class Vars>
void parse(mu::Parser& p, const std::string& text, const Vars& vars, std::map<std::string, double>& values) {
  if (text.find_first_not_of(" \t") == std::string::npos) throw ExpressionError("the expression is empty", true);
  for (const auto& [name, value] : vars) {
    values[name] = static_cast<double>(value);
    p.DefineVar(name, &values[name]);
  }
  Unknown unknown;
  p.SetVarFactory(collect_unknown, &unknown);
  try {
    p.SetExpr(text);
    p.GetUsedVar();  // parses; unknown names go to the factory
  } catch (const mu::ParserError& e) {
    throw ExpressionError("`" + text + "` does not parse: " + e.GetMsg(), true);
  }
  if (!unknown.names.empty())
    throw ExpressionError("`" + text + "` names `" + *unknown.names.begin() +
                          "`, which is not defined here (known: " + known_list(vars) + ")", true);
}

}  // namespace

std::int64_t eval_int(const std::string& text, const IntVars& vars) {
  for (const auto& [name, value] : vars)
    if (value > exact_limit || value < -exact_limit)
      throw ExpressionError("`" + name + "` = " + std::to_string(value) + " is past 2^53");
  mu::Parser p;
  p.EnableBuiltInOprt(false);
  // Priorities as C's: || below &&, below the comparisons, below + -, below * / %, below ^.
  p.DefineOprt("||", either, mu::prLOR);
  p.DefineOprt("&&", both, mu::prLAND);
  p.DefineOprt("<=", less_eq, mu::prCMP);
  p.DefineOprt(">=", greater_eq, mu::prCMP);
  p.DefineOprt("!=", not_equal, mu::prCMP);
  p.DefineOprt("==", equal, mu::prCMP);
  p.DefineOprt("<", less, mu::prCMP);
  p.DefineOprt(">", greater, mu::prCMP);
  p.DefineOprt("+", add, mu::prADD_SUB);
  p.DefineOprt("-", sub, mu::prADD_SUB);
  p.DefineOprt("*", mul, mu::prMUL_DIV);
  p.DefineOprt("/", div, mu::prMUL_DIV);
  p.DefineOprt("%", mod, mu::prMUL_DIV);
  p.DefineOprt("^", power, mu::prPOW, mu::oaRIGHT);
  p.DefineFun("ceil_div", ceil_div, false);
  p.DefineFun("round_up", round_up, false);
  std::map<std::string, double> values;
  try {
    parse(p, text, vars, values);
    const double v = p.Eval();
    if (!std::isfinite(v) || v != std::floor(v))
      throw ExpressionError("`" + text + "` is not a whole number (" + std::to_string(v) + ")");
    if (std::fabs(v) > static_cast<double>(exact_limit)) throw ExpressionError("`" + text + "` is past 2^53");
    return static_cast<std::int64_t>(v);
  } catch (const Refused& r) {
    throw ExpressionError("`" + text + "`: " + r.why);
  } catch (const mu::ParserError& e) {
    throw ExpressionError("`" + text + "` does not evaluate: " + e.GetMsg());
  }
}

double eval_real(const std::string& text, const RealVars& vars) {
  mu::Parser p;
  std::map<std::string, double> values;
  try {
    parse(p, text, vars, values);
    const double v = p.Eval();
    if (!std::isfinite(v)) throw ExpressionError("`" + text + "` is not finite");
    return v;
  } catch (const mu::ParserError& e) {
    throw ExpressionError("`" + text + "` does not evaluate: " + e.GetMsg());
  }
}

}  // namespace gpubench::spec
