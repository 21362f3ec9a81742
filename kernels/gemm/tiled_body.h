// GEMM's tiled kernel body (the study's): TILE x TILE work-items, one element of C each; per step
// of TILE along K, the work-group stages a tile of A and one of B in local memory and each item
// reads its row and column from there. Tiles at the edges are filled with zeros beyond the
// matrix, so any M, N and K run. Included inside a kernel function (kernels/gemm/device.h).
{
  GEMM_SHARED(real, As, TILE * TILE);
  GEMM_SHARED(real, Bs, TILE * TILE);
  const int tx = GEMM_LID_X, ty = GEMM_LID_Y;
  const int col = GEMM_GID_X * TILE + tx;
  const int row = GEMM_GID_Y * TILE + ty;
  real sum = 0;
  for (int l0 = 0; l0 < K; l0 += TILE) {
    const int la = l0 + tx, lb = l0 + ty;
    if (ta) {  // A stored K x M: consecutive items read consecutive rows of the product, as stored
      const int r = GEMM_GID_Y * TILE + tx;
      As[tx * TILE + ty] = (r < M && lb < K) ? A[aoff + (long)lb * lda + r] : (real)0;
    } else {
      As[ty * TILE + tx] = (row < M && la < K) ? A[aoff + (long)row * lda + la] : (real)0;
    }
    Bs[ty * TILE + tx] = (lb < K && col < N) ? B[boff + (long)lb * ldb + col] : (real)0;
    GEMM_SYNC();
    GEMM_UNROLL
    for (int l = 0; l < TILE; ++l) sum = GEMM_FMA(As[ty * TILE + l], Bs[l * TILE + tx], sum);
    GEMM_SYNC();
  }
  if (row < M && col < N) C[coff + (long)row * ldc + col] = alpha * sum + beta * C[coff + (long)row * ldc + col];
}
