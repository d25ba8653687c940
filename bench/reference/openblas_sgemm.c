/*
 * openblas_sgemm: OpenBLAS SGEMM throughput on the CPU, the reference that
 * `hplopt bench --reference FILE` compares MATMUL, SYRK and SYR2K with on a
 * CPU device (PoCL).
 *
 * Build (the Makefile's `reference` target does it when OpenBLAS is
 * installed: Debian/Ubuntu package libopenblas-dev):
 *
 *     cc -O2 -o bin/openblas_sgemm bench/reference/openblas_sgemm.c -lopenblas
 *
 * Usage: openblas_sgemm [N ...]   (default: 256 512 1024)
 *
 * For each N it times C = A B on random N x N row-major float matrices:
 * 2 warm-up products, then 10 timed by the monotonic clock; it prints the
 * median as
 *
 *     openblas-sgemm n=N threads=T median_ms=MS gflops=G
 *
 * Run it in the same session as the tuning run it is compared with, before
 * and after: a CPU's clocks and its other load change from minute to minute.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int run(int n) {
	size_t len = (size_t)n * n;
	float *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c);
	if (!a || !b || !c) {
		fprintf(stderr, "openblas_sgemm: n=%d: out of memory\n", n);
		return 1;
	}
	srand(1);
	for (size_t i = 0; i < len; i++) {
		a[i] = 2.0f * rand() / RAND_MAX - 1.0f;
		b[i] = 2.0f * rand() / RAND_MAX - 1.0f;
	}
	enum { warmups = 2, runs = 10 };
	double times[runs];
	for (int r = -warmups; r < runs; r++) {
		double t0 = now_ms();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
		double t1 = now_ms();
		if (r >= 0)
			times[r] = t1 - t0;
	}
	qsort(times, runs, sizeof times[0], cmp);
	double ms = times[runs / 2];
	printf("openblas-sgemm n=%d threads=%d median_ms=%.4f gflops=%.2f\n", n, openblas_get_num_threads(), ms,
	       2.0 * n * n * (double)n / ms / 1e6);
	fflush(stdout);
	free(a);
	free(b);
	free(c);
	return 0;
}

int main(int argc, char **argv) {
	int defaults[] = {256, 512, 1024};
	if (argc < 2) {
		for (int i = 0; i < 3; i++)
			if (run(defaults[i]))
				return 1;
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long n = strtol(argv[i], &end, 10);
		if (*end != '\0' || n <= 0 || n > 65536) {
			fprintf(stderr, "openblas_sgemm: %s: want a size from 1 to 65536\n", argv[i]);
			return 2;
		}
		if (run((int)n))
			return 1;
	}
	return 0;
}
