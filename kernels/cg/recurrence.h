// The fused CG forms' scalar recurrences (form1: Saad's three-term CG; form2: Chronopoulos-Gear),
// written once for the host and the devices: kernels/cg/operations.hpp includes it for the host
// (CG_REAL double), kernels/cg/opencl.cl and kernels/cg/nvrtc.cu for the device (CG_REAL the
// element type), where the coefficients are computed without a round trip to the host. The
// includer defines CG_REAL, CG_FN (the functions' qualifiers) and CG_G (the state's address space).
//
// The state is an array of CG_SCALARS values. An advance takes the two sums of the fused SpMV's
// pass ({r.r, (A r).r}) and leaves in CG_A and CG_B the coefficients of the next vector update.
// A breakdown (a zero or non-finite denominator) or an exact solution (r = 0) sets CG_STATUS and
// freezes the iteration: from then on the coefficients leave x and r as they are, so that the host,
// which reads the state only every few iterations, finds the iterate where the recurrence stopped
// and reports the breakdown by name (solver.cpp).

#define CG_RR 0          // ||r||^2 as the recurrence knows it (form1: of r_j, one step behind x)
#define CG_A 1           // the update's first coefficient: rho (form1), alpha (form2)
#define CG_B 2           // its second: gamma (form1), beta (form2)
#define CG_GAMMA_PREV 3  // form1: gamma_{j-1}
#define CG_RR_PREV 4     // form1: (r_{j-1}, r_{j-1})
#define CG_RHO_PREV 5    // form1: rho_{j-1}
#define CG_FIRST 6       // form1: 1 when the next step is a first one (rho = 1)
#define CG_STATUS 7      // CG_GOING, or why the iteration stopped
#define CG_BAD 8         // the denominator a breakdown found
#define CG_SCALARS 9

// CG_STATUS values.
#define CG_GOING 0
#define CG_EXACT 1           // r = 0: the iterate is the solution
#define CG_BREAKDOWN_RAR 2   // r.Ar zero or not finite
#define CG_BREAKDOWN_RHO 3   // form1's rho not finite
#define CG_BREAKDOWN_DEN 4   // form2's delta - beta gamma / alpha zero or not finite

// Rules (the advance's `rule`).
#define CG_RULE_THREE_TERM 0  // form1's step
#define CG_RULE_CG 1          // form2's step
#define CG_RULE_CG_RESTART 2  // form2's start from r (p = s = 0)

// Finite, without the math library (NVRTC has none): inf - inf and NaN - NaN are NaN.
#define CG_FINITE(v) ((v) - (v) == 0)

// The coefficients that leave x and r unchanged: form1 rho = 1, gamma = 0; form2 alpha = 0
// (and beta = 0: p = r, s = w).
CG_FN void cg_freeze(CG_G CG_REAL* s, const int rule, const int status, const CG_REAL bad) {
  if (s[CG_STATUS] == CG_GOING) {
    s[CG_STATUS] = (CG_REAL)status;
    s[CG_BAD] = bad;
  }
  s[CG_A] = rule == CG_RULE_THREE_TERM ? (CG_REAL)1 : (CG_REAL)0;
  s[CG_B] = 0;
}

// Saad, Iterative Methods for Sparse Linear Systems, 6.7.1, from rr = (r_j, r_j), wr = (A r_j, r_j):
//   gamma_j = rr / wr
//   rho_j   = 1 / (1 - gamma_j / gamma_{j-1} * (rr / rr_{j-1}) / rho_{j-1}), rho = 1 on a first step
CG_FN void cg_three_term(CG_G CG_REAL* s, const CG_REAL rr, const CG_REAL wr) {
  if (s[CG_STATUS] != CG_GOING) {
    cg_freeze(s, CG_RULE_THREE_TERM, CG_GOING, 0);
    return;
  }
  if (rr == 0) {
    s[CG_RR] = 0;
    cg_freeze(s, CG_RULE_THREE_TERM, CG_EXACT, 0);
    return;
  }
  if (wr == 0 || !CG_FINITE(wr) || !CG_FINITE(rr)) {
    cg_freeze(s, CG_RULE_THREE_TERM, CG_BREAKDOWN_RAR, wr);
    return;
  }
  const CG_REAL gamma = rr / wr;
  CG_REAL rho = 1;
  if (s[CG_FIRST] == 0) rho = 1 / (1 - gamma / s[CG_GAMMA_PREV] * (rr / s[CG_RR_PREV]) / s[CG_RHO_PREV]);
  if (!CG_FINITE(rho)) {
    cg_freeze(s, CG_RULE_THREE_TERM, CG_BREAKDOWN_RHO, rho);
    return;
  }
  s[CG_A] = rho;
  s[CG_B] = gamma;
  s[CG_GAMMA_PREV] = gamma;
  s[CG_RR_PREV] = rr;
  s[CG_RHO_PREV] = rho;
  s[CG_RR] = rr;
  s[CG_FIRST] = 0;
}

// Chronopoulos & Gear (1989), from gamma' = (r, r) and delta = (A r, r) of the new r:
//   beta = gamma' / gamma;  alpha = gamma' / (delta - beta gamma' / alpha)
// and, on a restart (p = s = 0), alpha = gamma' / delta, beta = 0.
CG_FN void cg_chronopoulos_gear(CG_G CG_REAL* s, const CG_REAL gamma, const CG_REAL delta, const int restart) {
  if (restart) s[CG_STATUS] = CG_GOING;
  if (s[CG_STATUS] != CG_GOING) {
    cg_freeze(s, CG_RULE_CG, CG_GOING, 0);
    return;
  }
  if (gamma == 0) {
    s[CG_RR] = 0;
    cg_freeze(s, CG_RULE_CG, CG_EXACT, 0);
    return;
  }
  const CG_REAL beta = restart ? (CG_REAL)0 : gamma / s[CG_RR];
  const CG_REAL den = restart ? delta : delta - beta * gamma / s[CG_A];
  if (den == 0 || !CG_FINITE(den) || !CG_FINITE(gamma)) {
    cg_freeze(s, CG_RULE_CG, restart ? CG_BREAKDOWN_RAR : CG_BREAKDOWN_DEN, den);
    return;
  }
  s[CG_A] = gamma / den;
  s[CG_B] = beta;
  s[CG_RR] = gamma;
}

// The fused SpMV's sums {a, b} advance the state by `rule`.
CG_FN void cg_advance(CG_G CG_REAL* s, const int rule, const CG_REAL a, const CG_REAL b) {
  if (rule == CG_RULE_THREE_TERM)
    cg_three_term(s, a, b);
  else
    cg_chronopoulos_gear(s, a, b, rule == CG_RULE_CG_RESTART);
}
