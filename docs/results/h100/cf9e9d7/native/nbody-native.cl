__kernel void nbody(__global float *acc, __global const float *pos,
                    int n, float eps2)
{
    int i = get_global_id(0);
    float xi = pos[4*i], yi = pos[4*i + 1], zi = pos[4*i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = pos[4*j] - xi;
        float dy = pos[4*j + 1] - yi;
        float dz = pos[4*j + 2] - zi;
        float inv = native_rsqrt(dx*dx + dy*dy + dz*dz + eps2);
        float s = pos[4*j + 3] * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[4*i] = ax;
    acc[4*i + 1] = ay;
    acc[4*i + 2] = az;
    acc[4*i + 3] = 0.0f;
}
