// GLOBAL 512 512
// LOCAL 16 8
__kernel __attribute__((reqd_work_group_size(16,8,1)))
void mxm(__global float *c, __global const float *a, __global const float *b, int limk) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int col0 = get_group_id(0)*128, row0 = get_group_id(1)*64;
  const int tid = ly*16 + lx;
  __local float As[16*64] __attribute__((aligned(16)));
  __local float Bs[16*128] __attribute__((aligned(16)));
  float acc[8][8];
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
  for (int kt = 0; kt < limk; kt += 16) {
    for (int e = tid; e < 1024; e += 128) { int r = e % 64, kk = e / 64; As[kk*64 + r] = a[(row0+r)*NSIZE + kt+kk]; }
    for (int e = tid; e < 2048; e += 128) { int kk = e / 128, cc = e % 128; Bs[kk*128 + cc] = b[(kt+kk)*NSIZE + col0 + cc]; }
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int kk = 0; kk < 16; kk++) {
      float ar[8], br[8];
      { float4 v = *(__local float4 *)&As[kk*64 + 0 + ly*4]; ar[0] = v.x; ar[1] = v.y; ar[2] = v.z; ar[3] = v.w; }
      { float4 v = *(__local float4 *)&As[kk*64 + 32 + ly*4]; ar[4] = v.x; ar[5] = v.y; ar[6] = v.z; ar[7] = v.w; }
      { float4 v = *(__local float4 *)&Bs[kk*128 + 0 + lx*4]; br[0] = v.x; br[1] = v.y; br[2] = v.z; br[3] = v.w; }
      { float4 v = *(__local float4 *)&Bs[kk*128 + 64 + lx*4]; br[4] = v.x; br[5] = v.y; br[6] = v.z; br[7] = v.w; }
      for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++)
    c[(row0 + (i/4)*32 + ly*4 + i%4)*NSIZE + col0 + (j/4)*64 + lx*4 + j%4] = acc[i][j];
}
