package clc

import (
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
)

// prelude is the C the parser reads before the kernel: OpenCL C's address
// spaces and function qualifiers become attributes that the converter finds
// among a declaration's tokens, OpenCL's scalar typedefs and vector types
// are declared so that C accepts them (the converter then names them as
// unsupported), and the built-in functions are declared without prototypes,
// so that C accepts calls to the overloaded ones with any arguments.
var prelude = `
int __predefined_declarator;
#define __kernel __attribute__((opencl_kernel))
#define kernel __kernel
#define __global __attribute__((opencl_global))
#define global __global
#define __constant __attribute__((opencl_constant))
#define constant __constant
#define __local __attribute__((opencl_local))
#define local __local
#define __private __attribute__((opencl_private))
#define private __private
#define __read_only __attribute__((opencl_image))
#define __write_only __attribute__((opencl_image))
#define __read_write __attribute__((opencl_image))
#define read_only __read_only
#define write_only __write_only
#define read_write __read_write
#define __attribute(x) __attribute__(x)
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define M_PI 3.141592653589793
#define M_PI_F 3.14159274f
#define M_E 2.718281828459045
#define M_E_F 2.71828175f
#define MAXFLOAT 3.40282347e+38f
#define FLT_MAX 3.40282347e+38f
#define FLT_MIN 1.17549435e-38f
#define FLT_EPSILON 1.1920929e-07f
#define DBL_MAX 1.7976931348623157e+308
#define DBL_EPSILON 2.220446049250313e-16
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef short half;
typedef int bool;
#define true 1
#define false 0
typedef int __clc_end_t;
` + vectorTypes + builtinDecls

// end is read after the kernel's source, and endName names it: a
// declaration that starts with a type name. The C parser loops forever
// when a source ends inside a declarator after a * (int *;), skipping
// tokens until one that can follow a pointer, such as a type name.
const (
	endName = "<end>"
	end     = "\n__clc_end_t __clc_end;\n"
)

// vectorTypes declares OpenCL's vector types as structs with the usual
// component names, so that a kernel using them parses and the converter can
// say that vector types are not supported.
const vectorTypes = `
#define __VEC(T, N) typedef struct { T x, y, z, w, s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, sa, sb, sc, sd, se, sf, lo, hi, even, odd; } T##N;
#define __VECS(T) __VEC(T, 2) __VEC(T, 3) __VEC(T, 4) __VEC(T, 8) __VEC(T, 16)
__VECS(char) __VECS(uchar) __VECS(short) __VECS(ushort) __VECS(int) __VECS(uint)
__VECS(long) __VECS(ulong) __VECS(float) __VECS(double) __VECS(half)
#undef __VECS
#undef __VEC
`

// The work-item functions, and those built-in functions that are not in
// the supported subset but common enough in kernels to deserve a precise
// message rather than "undefined".
var builtinDecls = `
size_t get_global_id(uint);
size_t get_local_id(uint);
size_t get_group_id(uint);
size_t get_global_size(uint);
size_t get_local_size(uint);
size_t get_num_groups(uint);
uint get_work_dim(void);
size_t get_global_offset(uint);
void barrier(int);
void mem_fence(int);
void read_mem_fence(int);
void write_mem_fence(int);
void work_group_barrier(int);
int printf();
int atomic_add(); int atomic_sub(); int atomic_xchg(); int atomic_inc(); int atomic_dec();
int atomic_cmpxchg(); int atomic_min(); int atomic_max(); int atomic_and(); int atomic_or();
int atomic_xor(); int atom_add(); int atom_sub(); int atom_xchg(); int atom_inc(); int atom_dec();
int atom_cmpxchg(); int atom_min(); int atom_max();
int async_work_group_copy(); int wait_group_events(); int prefetch();
int vload2(); int vload3(); int vload4(); int vload8(); int vload16();
int vstore2(); int vstore3(); int vstore4(); int vstore8(); int vstore16();
int dot(); int cross(); int length(); int distance(); int normalize();
int select(); int bitselect(); int mix(); int step(); int smoothstep(); int sign();
int abs(); int abs_diff(); int mad24(); int mul24(); int mad_hi(); int mul_hi();
int rotate(); int popcount(); int clz(); int upsample(); int hadd(); int rhadd();
int add_sat(); int sub_sat(); int isnan(); int isinf(); int isfinite();
int convert_int(); int convert_float(); int convert_double(); int convert_uint();
int as_int(); int as_float(); int as_uint();
int read_imagef(); int write_imagef(); int read_imagei(); int write_imagei();
` + mathDecls

// builtin describes a supported math built-in function: its number of
// arguments and whether it takes floating-point arguments only (sqrt) or
// integers too (min).
type builtin struct {
	args      int
	floatOnly bool
}

// builtins are the math functions a kernel may call. Code generation
// prints a call as written, so each is the OpenCL C function of that name.
var builtins = func() map[string]builtin {
	m := map[string]builtin{}
	add := func(names string, b builtin) {
		for _, n := range strings.Fields(names) {
			m[n] = b
		}
	}
	add(`sqrt rsqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan asin acos atan
		sinh cosh tanh fabs floor ceil round trunc native_sqrt native_rsqrt native_exp native_log
		native_sin native_cos native_recip`, builtin{1, true})
	add("pow powr atan2 fmin fmax fmod hypot copysign native_divide native_powr", builtin{2, true})
	add("fma mad", builtin{3, true})
	add("min max", builtin{2, false})
	add("clamp", builtin{3, false})
	return m
}()

// mathDecls declares the supported math functions without prototypes; the
// integer-capable ones return int so that C accepts them in subscripts.
var mathDecls = func() string {
	names := make([]string, 0, len(builtins))
	for name := range builtins {
		names = append(names, name)
	}
	sort.Strings(names)
	s := ""
	for _, name := range names {
		if builtins[name].floatOnly {
			s += "double " + name + "();\n"
		} else {
			s += "int " + name + "();\n"
		}
	}
	return s
}()

// workItem maps OpenCL's work-item functions to the kernel's predefined
// identifiers.
var workItem = map[string]ast.SpecialKind{
	"get_global_id":   ast.GlobalID,
	"get_local_id":    ast.LocalID,
	"get_group_id":    ast.GroupID,
	"get_global_size": ast.GlobalSize,
	"get_local_size":  ast.LocalSize,
	"get_num_groups":  ast.NumGroups,
}

// reserved are names a kernel variable cannot keep: code generation
// declares the predefined identifiers under these names, and passes call
// min and max.
var reserved = map[string]bool{
	"idx": true, "idy": true, "idz": true, "lidx": true, "lidy": true, "lidz": true,
	"gidx": true, "gidy": true, "gidz": true, "szx": true, "szy": true, "szz": true,
	"lszx": true, "lszy": true, "lszz": true, "ngroupsx": true, "ngroupsy": true, "ngroupsz": true,
	"min": true, "max": true,
}
