package clc_test

import (
	"testing"

	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// TestSamePatternsAsDSL checks that benchmarks written in OpenCL C with
// linear subscripts, loaded and delinearized, get the access-pattern table
// of the same benchmarks written with the DSL: the optimizer sees the
// same kernel.
func TestSamePatternsAsDSL(t *testing.T) {
	cases := []struct {
		dsl  *hpl.Kernel
		src  string
		opts clc.Options
	}{
		{kernels.MatMul, `__kernel void mxm(__global float *c, __global const float *a,
                  __global const float *b, int limk) {
    int x = get_global_id(0), y = get_global_id(1), n = get_global_size(0);
    c[y*n + x] = 0.0f;
    for (int k = 0; k < limk; k++)
        c[y*n + x] += a[y*limk + k] * b[k*n + x];
}`, clc.Options{Global: []int{32, 32}, Args: map[string]float64{"limk": 16}}},
		{kernels.NBody, `__kernel void nbody(__global float *pos, __global float *vel,
                    __global float *newpos, __global float *newvel,
                    float dt, float eps2, int n) {
    int i = get_global_id(0);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float dx = pos[4*j] - pos[4*i];
        float dy = pos[4*j + 1] - pos[4*i + 1];
        float dz = pos[4*j + 2] - pos[4*i + 2];
        float inv = rsqrt(dx*dx + dy*dy + dz*dz + eps2);
        float s = pos[4*j + 3] * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    newvel[4*i] = vel[4*i] + ax * dt;
    newpos[4*i] = pos[4*i] + (vel[4*i] + ax * dt) * dt;
    newvel[4*i + 1] = vel[4*i + 1] + ay * dt;
    newpos[4*i + 1] = pos[4*i + 1] + (vel[4*i + 1] + ay * dt) * dt;
    newvel[4*i + 2] = vel[4*i + 2] + az * dt;
    newpos[4*i + 2] = pos[4*i + 2] + (vel[4*i + 2] + az * dt) * dt;
    newvel[4*i + 3] = vel[4*i + 3];
    newpos[4*i + 3] = pos[4*i + 3];
}`, clc.Options{Global: []int{256}, Args: map[string]float64{"n": 256}}},
	}
	for _, c := range cases {
		t.Run(c.dsl.Name(), func(t *testing.T) {
			k, err := clc.Load(c.dsl.Name()+".cl", []byte(c.src), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := patterns.Analyze(k.AST)
			if err != nil {
				t.Fatal(err)
			}
			want, err := patterns.Analyze(c.dsl.AST())
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("the OpenCL C kernel's table\n%s\nthe DSL kernel's\n%s", got, want)
			}
		})
	}
}
