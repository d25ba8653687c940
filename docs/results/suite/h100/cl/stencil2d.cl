__kernel void stencil2d(__global const float *in, __global float *out,
                        const int nx, const int ny)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1) {
        out[y * nx + x] = 0.2f * (in[y * nx + x] + in[y * nx + x - 1] + in[y * nx + x + 1]
                                  + in[(y - 1) * nx + x] + in[(y + 1) * nx + x]);
    }
}
