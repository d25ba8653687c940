__kernel void syrkc(__global float *c, __global const float *a, float alpha, float beta, int n)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float s = 0.0f;
    for (int k = 0; k < n; k++) {
        s += a[y * n + k] * a[x * n + k];
    }
    c[y * n + x] = beta * c[y * n + x] + alpha * s;
}
