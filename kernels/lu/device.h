// LU's device code, written once for OpenCL C (kernels/lu/opencl.cl includes it, with `real` a
// typedef of -DREAL) and CUDA (kernels/lu/nvrtc.cu includes it, `real` a -D define; the host,
// kernels/lu/cuda.cu, includes it for its constants). Each API's kernels are thin entry
// points that pass their indices here. LU_GROUP is the work-group size of the reductions.
//
// The study's forms work on row-major n x n arrays (a[k n + j]); the blocked LU on the
// column-major matrix (a[i + j n]) with 0-based pivots ipiv[c] (the row swapped with row c).

// --- The study's kernels --------------------------------------------------------------------
// kernelCalculaFatores: item t, t >= i: U[i][t] = A[i][t]; t > i: L[t][i] = A[t][i] / A[i][i].
LU_FN void lu_study_factors(LU_G real* l, LU_G real* u, LU_G const real* a, int n, int i, int t) {
  if (t < n) {
    if (t >= i) u[i * n + t] = a[i * n + t];
    if (t > i) l[t * n + i] = a[t * n + i] / a[i * n + i];
  }
}
// kernelAtualizaMatriz: item (k, j), k > i, j >= i: A[k][j] -= L[k][i] U[i][j].
LU_FN void lu_study_update(LU_G const real* l, LU_G const real* u, LU_G real* a, int n, int i, int k, int j) {
  if (k < n && j < n && k > i && j >= i) a[k * n + j] -= l[k * n + i] * u[i * n + j];
}
// kernelCalculaFatoresOtimizado: every factor, branch-free (the host keeps those below i).
LU_FN void lu_study_factors_optimised(LU_G const real* column, LU_G real* f, int n, int i, int t) {
  if (t < n) f[t] = column[t] / column[i];
}
// kernelAtualizaMatrizOtimizado: every element into the auxiliary array, branch-free.
LU_FN void lu_study_update_optimised(LU_G const real* a, LU_G const real* v, LU_G real* aux, int n, int k, int j) {
  if (k < n && j < n) aux[k * n + j] = a[k * n + j] - v[k] * v[n + j];
}

// --- The blocked LU's kernels ---------------------------------------------------------------
#define LU_CHUNK 16
// The largest |value| of a work-group and its row (the smaller row on ties, as LAPACK's idamax
// takes the first): a tree in local memory; every item gets the result.
LU_FN void lu_group_max(LU_L real* value, LU_L int* row, int lid, real v, int r, real* best, int* best_row) {
  value[lid] = v;
  row[lid] = r;
  LU_SYNC();
  for (int s = LU_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) {
      const real o = value[lid + s];
      const int orow = row[lid + s];
      if (o > value[lid] || (o == value[lid] && orow < row[lid])) {
        value[lid] = o;
        row[lid] = orow;
      }
    }
    LU_SYNC();
  }
  *best = value[0];
  *best_row = row[0];
  LU_SYNC();
}

// The panel's column steps exchange partials: per group, its candidate for the next pivot (the
// largest |A(r, c)| of its rows, the row r, and that row's values on the panel's columns
// [j, j + w), w <= LU_LEAF_MAX), in two sets a launch reads one of and writes the other.
#define LU_LEAF_MAX 64
LU_FN void lu_candidate(LU_G const real* a, int n, int j, int w, real best, int best_row, LU_G real* pvalue,
                        LU_G int* prow, LU_G real* prows, LU_L real* value, LU_L int* row, int lid, int group) {
  real g;
  int r;
  lu_group_max(value, row, lid, best, best_row, &g, &r);  // its barriers also order the rows' stores
  if (lid == 0) {
    pvalue[group] = g;
    prow[group] = r;
  }
  if (r < n)
    for (int k = lid; k < w; k += LU_GROUP) prows[group * LU_LEAF_MAX + k] = a[r + (long)(j + k) * n];
}

// The candidates for column j, the panel's first, from rows [j, n) (grid-stride).
LU_FN void lu_pivot(LU_G const real* a, int n, int j, int w, LU_G real* pvalue, LU_G int* prow, LU_G real* prows,
                    LU_L real* value, LU_L int* row, int lid, int group, int groups) {
  real best = (real)-1;
  int best_row = n;
  for (int r = j + group * LU_GROUP + lid; r < n; r += groups * LU_GROUP) {
    const real v = fabs(a[r + (long)j * n]);
    if (v > best) {
      best = v;
      best_row = r;
    }
  }
  lu_candidate(a, n, j, w, best, best_row, pvalue, prow, prows, value, row, lid, group);
}

// Column c of the panel [j, j + w) in one launch. Every group takes the pivot p from the previous
// launch's pgroups candidates (the largest |value|, the smaller row on ties, as LAPACK's idamax)
// and the pivot row's values with it; the group whose rows (grid-stride from c + 1) hold p swaps
// rows c and p on the panel's columns, nobody else touching either; every group eliminates its
// rows below c (the multiplier, then the row of the panel's columns right of c) and leaves its
// candidate for column c + 1. A zero column keeps its row and is left as it is (as LAPACK's
// dgetf2). u: LU_LEAF_MAX items of local memory.
LU_FN void lu_step(LU_G real* a, int n, int c, int j, int w, int pgroups, LU_G const real* pvalue,
                   LU_G const int* prow, LU_G const real* prows, LU_G real* nvalue, LU_G int* nrow, LU_G real* nrows,
                   LU_G int* ipiv, LU_L real* value, LU_L int* row, LU_L real* u, int lid, int group, int groups) {
  real g;
  int p;
  lu_group_max(value, row, lid, lid < pgroups ? pvalue[lid] : (real)-1, lid < pgroups ? prow[lid] : n, &g, &p);
  const int swap = g > 0 && p != c && p < n;
  if (swap && lid < pgroups && prow[lid] == p) row[0] = lid;  // the candidate's group: one item
  LU_SYNC();
  const int from = swap ? row[0] : 0;
  for (int k = lid; k < w; k += LU_GROUP) u[k] = swap ? prows[from * LU_LEAF_MAX + k] : a[c + (long)(j + k) * n];
  if (group == 0 && lid == 0) ipiv[c] = swap ? p : c;
  if (swap && ((p - c - 1) / LU_GROUP) % groups == group)
    for (int k = lid; k < w; k += LU_GROUP) {
      a[p + (long)(j + k) * n] = a[c + (long)(j + k) * n];
      a[c + (long)(j + k) * n] = u[k];
    }
  LU_SYNC();  // u complete; row p's new values seen by the item that eliminates it
  const real pivot = u[c - j];
  const int next = c + 1 < j + w;
  real best = (real)-1;
  int best_row = n;
  for (int r = c + 1 + group * LU_GROUP + lid; r < n; r += groups * LU_GROUP) {
    if (pivot != (real)0) {
      const real m = a[r + (long)c * n] / pivot;
      a[r + (long)c * n] = m;
      // LU_CHUNK columns' loads issued before their stores: one memory latency per chunk, not
      // one per column (a load after a store to the same array waits for nothing else).
      for (int k0 = c + 1; k0 < j + w; k0 += LU_CHUNK) {
        real v[LU_CHUNK];
        for (int t = 0; t < LU_CHUNK; ++t)
          if (k0 + t < j + w) v[t] = a[r + (long)(k0 + t) * n];
        for (int t = 0; t < LU_CHUNK; ++t)
          if (k0 + t < j + w) a[r + (long)(k0 + t) * n] = v[t] - m * u[k0 + t - j];
      }
    }
    if (next) {
      const real v = fabs(a[r + (long)(c + 1) * n]);
      if (v > best) {
        best = v;
        best_row = r;
      }
    }
  }
  lu_candidate(a, n, j, w, best, best_row, nvalue, nrow, nrows, value, row, lid, group);  // none after the last
}

// --- The panel's leaf: columns [j, j + w) in one launch of work-groups all resident at once ---
// Each API supplies, before including this file: lu_grid_sync(word, failed, flag), where every
// work-group of the launch meets (what each wrote to global memory before it is visible to all
// after it; 1 for all of a group's items, or 0 where the API gives up waiting, *failed set: the
// leaf then returns unfinished and the host says so; `flag` one int of local memory); and, where
// LU_SHUFFLE is defined, lu_shfl_real(v, o) and lu_shfl_int(v, o): v from the lane o away in a
// butterfly of 32 lanes (a warp). Without shuffles the groups' maxima are lu_group_max's trees.
#ifdef LU_SHUFFLE
#define LU_REDUCE_SLOTS (LU_GROUP / 32)
// The largest |value| of a group and its row (the smaller row on ties, as LAPACK's idamax): within
// each warp by shuffles, then across the warps through `value` and `row` (one entry per warp);
// every item gets the result. One barrier: callers separate two calls by another (the leaf's
// grid sync and its column step's barriers do).
LU_FN void lu_leaf_max(LU_L real* value, LU_L int* row, int tid, real v, int r, real* best, int* best_row) {
  for (int o = 16; o > 0; o >>= 1) {  // a butterfly: every lane ends with its warp's result
    const real ov = lu_shfl_real(v, o);
    const int orow = lu_shfl_int(r, o);
    if (ov > v || (ov == v && orow < r)) {
      v = ov;
      r = orow;
    }
  }
  if (tid % 32 == 0) {
    value[tid / 32] = v;
    row[tid / 32] = r;
  }
  LU_SYNC();
  v = value[0];
  r = row[0];
  for (int w = 1; w < LU_GROUP / 32; ++w) {
    const real ov = value[w];
    const int orow = row[w];
    if (ov > v || (ov == v && orow < r)) {
      v = ov;
      r = orow;
    }
  }
  *best = v;
  *best_row = r;
}
#else
#define LU_REDUCE_SLOTS LU_GROUP
#define lu_leaf_max lu_group_max
#endif

// Each group holds `slab` consecutive rows in local memory `s` (column-major, ld slab) from the
// first column to the last, and the groups meet once per column (lu_grid_sync) instead of once
// per launch. Per column c: each group's candidate (the largest |A(r, c)|, r >= c, the smaller
// row on ties, as LAPACK's idamax) with its row's values, and row c's values from the group that
// holds it, go to the partials of c's parity; after the sync every group takes the pivot p from
// them, the holders of rows c and p swap those rows, and every group eliminates its rows below c:
// each row by `split` items (as many as the group has for its rows), the multiplier and then its
// share of the row's columns right of c. A zero column keeps its row and is left as it is (as
// LAPACK's dgetf2). ipiv[c]: 0-based, as getf2's. value and row: LU_REDUCE_SLOTS entries; u:
// LU_LEAF_MAX; winner and flag: one each.
LU_FN void lu_leaf(LU_G real* a, int n, int j, int w, int slab, LU_G real* pvalue, LU_G int* prow, LU_G real* prows,
                   LU_G real* rowc, LU_G int* ipiv, LU_G unsigned int* word, LU_G int* failed, LU_L real* s,
                   LU_L real* value, LU_L int* row, LU_L real* u, LU_L int* winner, LU_L int* flag, int tid, int b,
                   int groups) {
  const int r0 = j + b * slab, rows = max(0, min(slab, n - r0));
  for (int e = tid; e < rows * w; e += LU_GROUP) s[e % rows + e / rows * slab] = a[r0 + e % rows + (long)(j + e / rows) * n];
  LU_SYNC();
  for (int k = 0; k < w; ++k) {
    const int c = j + k, in = k & 1;
    LU_G real* cv = pvalue + in * LU_GROUP;
    LU_G int* cr = prow + in * LU_GROUP;
    LU_G real* crows = prows + in * LU_GROUP * LU_LEAF_MAX;
    LU_G real* rc = rowc + in * LU_LEAF_MAX;
    real best = (real)-1;
    int best_row = n;
    for (int i = max(0, c - r0) + tid; i < rows; i += LU_GROUP) {
      const real v = fabs(s[i + k * slab]);
      if (v > best) {
        best = v;
        best_row = r0 + i;
      }
    }
    real g;
    int p;
    lu_leaf_max(value, row, tid, best, best_row, &g, &p);
    if (tid == 0) {
      cv[b] = g;
      cr[b] = p;
    }
    if (p < n)
      for (int t = tid; t < w; t += LU_GROUP) crows[b * LU_LEAF_MAX + t] = s[p - r0 + t * slab];
    if (c >= r0 && c < r0 + rows)
      for (int t = tid; t < w; t += LU_GROUP) rc[t] = s[c - r0 + t * slab];
    if (!lu_grid_sync(word, failed, flag)) return;  // (the matrix untouched: the host says why)
    lu_leaf_max(value, row, tid, tid < groups ? cv[tid] : (real)-1, tid < groups ? cr[tid] : n, &g, &p);
    const int swap = g > 0 && p != c && p < n;
    if (swap && tid < groups && cr[tid] == p) *winner = tid;
    LU_SYNC();
    const int from = *winner;
    for (int t = tid; t < w; t += LU_GROUP) u[t] = swap ? crows[from * LU_LEAF_MAX + t] : rc[t];
    if (b == 0 && tid == 0) ipiv[c] = swap ? p : c;
    if (swap) {
      if (c >= r0 && c < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[c - r0 + t * slab] = crows[from * LU_LEAF_MAX + t];
      if (p >= r0 && p < r0 + rows)
        for (int t = tid; t < w; t += LU_GROUP) s[p - r0 + t * slab] = rc[t];
    }
    LU_SYNC();
    const real pivot = u[k];
    const int first = max(0, c + 1 - r0), below = rows - first;
    // `split` items per row where the rows are fewer than the items: item tid takes row
    // first + tid % per_pass and the columns k + 1 + part, + split, ...
    const int split = below > 0 ? max(1, min(LU_GROUP / below, w - k - 1)) : 1, per_pass = LU_GROUP / split;
    const int part = tid / per_pass;
    real kept = 0;
    int kept_row = -1;
    if (pivot != (real)0 && part < split)
      for (int i = first + tid % per_pass; i < rows; i += per_pass) {
        const real m = s[i + k * slab] / pivot;
        for (int t = k + 1 + part; t < w; t += split) s[i + t * slab] -= m * u[t];
        if (split == 1)
          s[i + k * slab] = m;
        else if (part == 0) {  // one pass (per_pass >= below): written once every part has read it
          kept = m;
          kept_row = i;
        }
      }
    LU_SYNC();
    if (kept_row >= 0) s[kept_row + k * slab] = kept;
  }
  LU_SYNC();
  for (int e = tid; e < rows * w; e += LU_GROUP) a[r0 + e % rows + (long)(j + e / rows) * n] = s[e % rows + e / rows * slab];
}

// Rows k and ipiv[k] swapped for k in [k0, k1), in order, on the group's LU_SWAP_COLS columns of
// [c0, c1), LU_SWAP_ROWS swaps at a time. The chunk's rows and the rows its pivots name outside
// it are loaded at once (coalesced down the columns, the outside ones each once: a later swap
// with the same outside row takes what the earlier one left there); one item per column then
// swaps in local memory, in order; then all are stored. No chain of dependent global loads.
#define LU_SWAP_ROWS 32
#define LU_SWAP_COLS 32
#define LU_SWAP_LD (LU_SWAP_COLS + 1)
LU_FN void lu_laswp(LU_G real* a, int n, LU_G const int* ipiv, int k0, int k1, int c0, int c1, LU_L real* seg,
                    LU_L real* out, LU_L int* piv, LU_L int* prev, LU_L int* last, int lid, int group) {
  const int cb = c0 + group * LU_SWAP_COLS, cols = min(LU_SWAP_COLS, c1 - cb);
  for (int kc = k0; kc < k1; kc += LU_SWAP_ROWS) {
    const int m = min(LU_SWAP_ROWS, k1 - kc), end = kc + m;
    if (lid < m) piv[lid] = ipiv[kc + lid];
    for (int e = lid; e < m * cols; e += LU_GROUP) seg[e % m * LU_SWAP_LD + e / m] = a[kc + e % m + (long)(cb + e / m) * n];
    LU_SYNC();
    if (lid < m) {  // an outside row: the swap before it on the same row, and whether it is the last
      const int p = piv[lid];
      const int outside = p < kc || p >= end;
      int before = -1, after = 0;
      for (int r = 0; outside && r < m; ++r)
        if (piv[r] == p) {
          if (r < lid) before = r;
          if (r > lid) after = 1;
        }
      prev[lid] = before;
      last[lid] = outside && !after;
    }
    LU_SYNC();
    for (int e = lid; e < m * cols; e += LU_GROUP) {
      const int r = e % m, p = piv[r];
      if ((p < kc || p >= end) && prev[r] < 0) out[r * LU_SWAP_LD + e / m] = a[p + (long)(cb + e / m) * n];
    }
    LU_SYNC();
    if (lid < cols)
      for (int r = 0; r < m; ++r) {
        const int p = piv[r];
        LU_L real* s = seg + r * LU_SWAP_LD + lid;
        if (p >= kc && p < end) {
          LU_L real* t = seg + (p - kc) * LU_SWAP_LD + lid;
          const real v = *s;
          *s = *t;
          *t = v;
        } else {
          const real v = out[(prev[r] < 0 ? r : prev[r]) * LU_SWAP_LD + lid];
          out[r * LU_SWAP_LD + lid] = *s;
          *s = v;
        }
      }
    LU_SYNC();
    for (int e = lid; e < m * cols; e += LU_GROUP) {
      const int r = e % m, col = e / m;
      a[kc + r + (long)(cb + col) * n] = seg[r * LU_SWAP_LD + col];
      if (last[r]) a[piv[r] + (long)(cb + col) * n] = out[r * LU_SWAP_LD + col];
    }
    LU_SYNC();
  }
}

// Column col of L(j:j+w, j:j+w)^-1 (unit lower), into inv (w x w, column-major), by one
// work-group: forward substitution on the unit vector, held in local memory (w <= LU_TRTRI_MAX),
// each step's column of L read by the group at once.
#define LU_TRTRI_MAX 512
LU_FN void lu_trtri(LU_G const real* a, int n, int j, int w, LU_G real* inv, LU_L real* x, int col, int lid) {
  for (int r = lid; r < w; r += LU_GROUP) x[r] = r == col ? (real)1 : (real)0;
  LU_SYNC();
  for (int k = col; k < w - 1; ++k) {
    const real xk = x[k];
    LU_G const real* l = a + j + (long)(j + k) * n;
    for (int r = k + 1 + lid; r < w; r += LU_GROUP) x[r] -= l[r] * xk;
    LU_SYNC();
  }
  for (int r = lid; r < w; r += LU_GROUP) inv[r + (long)col * w] = x[r];
}

// Element (r, c) of a rows x cols block: src (column-major, rows ld apart) into the matrix at
// (row0, col0).
LU_FN void lu_copy(LU_G const real* src, int ld, LU_G real* a, int n, int row0, int col0, int rows, int cols, int r,
                   int c) {
  if (r < rows && c < cols) a[row0 + r + (long)(col0 + c) * n] = src[r + (long)c * ld];
}
