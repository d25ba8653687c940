// GLOBAL 512 512
// LOCAL 16 16
__kernel __attribute__((reqd_work_group_size(16,16,1)))
void mxm(__global float *c, __global const float *a, __global const float *b, int limk) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int col0 = get_group_id(0)*128, row0 = get_group_id(1)*128;
  const int tid = ly*16 + lx;
  __local float As[128][17];
  __local float Bs[16][128];
  float acc[8][8];
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;
  for (int kt = 0; kt < limk; kt += 16) {
    As[(tid + 0) / 16][(tid + 0) % 16] = a[(row0 + (tid + 0) / 16)*NSIZE + kt + (tid + 0) % 16];
    As[(tid + 256) / 16][(tid + 256) % 16] = a[(row0 + (tid + 256) / 16)*NSIZE + kt + (tid + 256) % 16];
    As[(tid + 512) / 16][(tid + 512) % 16] = a[(row0 + (tid + 512) / 16)*NSIZE + kt + (tid + 512) % 16];
    As[(tid + 768) / 16][(tid + 768) % 16] = a[(row0 + (tid + 768) / 16)*NSIZE + kt + (tid + 768) % 16];
    As[(tid + 1024) / 16][(tid + 1024) % 16] = a[(row0 + (tid + 1024) / 16)*NSIZE + kt + (tid + 1024) % 16];
    As[(tid + 1280) / 16][(tid + 1280) % 16] = a[(row0 + (tid + 1280) / 16)*NSIZE + kt + (tid + 1280) % 16];
    As[(tid + 1536) / 16][(tid + 1536) % 16] = a[(row0 + (tid + 1536) / 16)*NSIZE + kt + (tid + 1536) % 16];
    As[(tid + 1792) / 16][(tid + 1792) % 16] = a[(row0 + (tid + 1792) / 16)*NSIZE + kt + (tid + 1792) % 16];
    Bs[(tid + 0) / 128][(tid + 0) % 128] = b[(kt + (tid + 0) / 128)*NSIZE + col0 + (tid + 0) % 128];
    Bs[(tid + 256) / 128][(tid + 256) % 128] = b[(kt + (tid + 256) / 128)*NSIZE + col0 + (tid + 256) % 128];
    Bs[(tid + 512) / 128][(tid + 512) % 128] = b[(kt + (tid + 512) / 128)*NSIZE + col0 + (tid + 512) % 128];
    Bs[(tid + 768) / 128][(tid + 768) % 128] = b[(kt + (tid + 768) / 128)*NSIZE + col0 + (tid + 768) % 128];
    Bs[(tid + 1024) / 128][(tid + 1024) % 128] = b[(kt + (tid + 1024) / 128)*NSIZE + col0 + (tid + 1024) % 128];
    Bs[(tid + 1280) / 128][(tid + 1280) % 128] = b[(kt + (tid + 1280) / 128)*NSIZE + col0 + (tid + 1280) % 128];
    Bs[(tid + 1536) / 128][(tid + 1536) % 128] = b[(kt + (tid + 1536) / 128)*NSIZE + col0 + (tid + 1536) % 128];
    Bs[(tid + 1792) / 128][(tid + 1792) % 128] = b[(kt + (tid + 1792) / 128)*NSIZE + col0 + (tid + 1792) % 128];
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int kk = 0; kk < 16; kk++) {
      acc[0][0] += As[0 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 0];
      acc[0][1] += As[0 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 1];
      acc[0][2] += As[0 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 0];
      acc[0][3] += As[0 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 1];
      acc[0][4] += As[0 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 0];
      acc[0][5] += As[0 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 1];
      acc[0][6] += As[0 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 0];
      acc[0][7] += As[0 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 1];
      acc[1][0] += As[0 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 0];
      acc[1][1] += As[0 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 1];
      acc[1][2] += As[0 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 0];
      acc[1][3] += As[0 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 1];
      acc[1][4] += As[0 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 0];
      acc[1][5] += As[0 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 1];
      acc[1][6] += As[0 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 0];
      acc[1][7] += As[0 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 1];
      acc[2][0] += As[32 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 0];
      acc[2][1] += As[32 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 1];
      acc[2][2] += As[32 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 0];
      acc[2][3] += As[32 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 1];
      acc[2][4] += As[32 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 0];
      acc[2][5] += As[32 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 1];
      acc[2][6] += As[32 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 0];
      acc[2][7] += As[32 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 1];
      acc[3][0] += As[32 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 0];
      acc[3][1] += As[32 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 1];
      acc[3][2] += As[32 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 0];
      acc[3][3] += As[32 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 1];
      acc[3][4] += As[32 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 0];
      acc[3][5] += As[32 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 1];
      acc[3][6] += As[32 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 0];
      acc[3][7] += As[32 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 1];
      acc[4][0] += As[64 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 0];
      acc[4][1] += As[64 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 1];
      acc[4][2] += As[64 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 0];
      acc[4][3] += As[64 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 1];
      acc[4][4] += As[64 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 0];
      acc[4][5] += As[64 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 1];
      acc[4][6] += As[64 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 0];
      acc[4][7] += As[64 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 1];
      acc[5][0] += As[64 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 0];
      acc[5][1] += As[64 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 1];
      acc[5][2] += As[64 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 0];
      acc[5][3] += As[64 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 1];
      acc[5][4] += As[64 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 0];
      acc[5][5] += As[64 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 1];
      acc[5][6] += As[64 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 0];
      acc[5][7] += As[64 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 1];
      acc[6][0] += As[96 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 0];
      acc[6][1] += As[96 + ly*2 + 0][kk] * Bs[kk][0 + lx*2 + 1];
      acc[6][2] += As[96 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 0];
      acc[6][3] += As[96 + ly*2 + 0][kk] * Bs[kk][32 + lx*2 + 1];
      acc[6][4] += As[96 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 0];
      acc[6][5] += As[96 + ly*2 + 0][kk] * Bs[kk][64 + lx*2 + 1];
      acc[6][6] += As[96 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 0];
      acc[6][7] += As[96 + ly*2 + 0][kk] * Bs[kk][96 + lx*2 + 1];
      acc[7][0] += As[96 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 0];
      acc[7][1] += As[96 + ly*2 + 1][kk] * Bs[kk][0 + lx*2 + 1];
      acc[7][2] += As[96 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 0];
      acc[7][3] += As[96 + ly*2 + 1][kk] * Bs[kk][32 + lx*2 + 1];
      acc[7][4] += As[96 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 0];
      acc[7][5] += As[96 + ly*2 + 1][kk] * Bs[kk][64 + lx*2 + 1];
      acc[7][6] += As[96 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 0];
      acc[7][7] += As[96 + ly*2 + 1][kk] * Bs[kk][96 + lx*2 + 1];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++)
    c[(row0 + (i/2)*32 + ly*2 + i%2)*NSIZE + col0 + (j/2)*32 + lx*2 + j%2] = acc[i][j];
}
