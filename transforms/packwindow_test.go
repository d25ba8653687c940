package transforms_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/opencl"
)

// TestPackWindowUnrolled checks that a convolution's window of neighbouring
// inputs, read in a loop unrolled by uf whose counter starts at a tile's
// base, is read as float4 runs (the counter is then a multiple of uf), and
// that such variants, with and without split and prefetch, compute the
// single-point kernel's result on the OpenCL device.
func TestPackWindowUnrolled(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, size := benchInstance(t, "conv1d", []int{256}, []int{64})
	prob := problemOf(t, in, s.Device)
	settings := []string{
		"lszx=16,bszx=4,interleave=0,fullunroll=1,tw0=32,uf=8,lmem=1,pack=1",
		"lszx=8,bszx=8,interleave=0,fullunroll=1,tw0=16,uf=16,lmem=1,lcopy=1,pack=1,prefetch=1,split=2",
		"lszx=8,bszx=4,interleave=0,fullunroll=1,tw0=8,uf=4,lmem=1,pack=1,prefetch=2,split=4",
	}
	vs, ps := variantsOf(t, prob, settings)
	for i, v := range vs {
		src, err := codegen.Source(v.Kernel)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "float4 v_l_in = *(__local float4 *)&l_in[") || !strings.Contains(src, "j - j_t + lidx * ") {
			t.Errorf("%s: the window is not read as float4 runs:\n%s", settings[i], src)
		}
	}
	runBatch(t, s, in, size, vs, ps)
}
