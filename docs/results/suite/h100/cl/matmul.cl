__kernel void matmul(__global float *c, __global const float *a,
                     __global const float *b, int m, int n, int p)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < p; k++) {
            acc += a[row * p + k] * b[k * n + col];
        }
        c[row * n + col] = acc;
    }
}
