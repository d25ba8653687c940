__kernel void mxmtk(__global float *c, __global const float *a, __global const float *b, int n, int nk)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float s = 0.0f;
    for (int k = 0; k < nk; k++) {
        s += a[y * nk + k] * b[x * nk + k];
    }
    c[y * n + x] = s;
}
