# hplopt: make run tunes a kernel on the best device found; make test runs
# every test. Both install what is missing first (Debian/Ubuntu, as root).

GO ?= go
PKGS := pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
export CGO_ENABLED := 1
# The version the records and reports carry, also where the go command
# stamps no VCS information (GOFLAGS=-buildvcs=false).
VERSION := $(shell git describe --always --dirty 2>/dev/null)
LDFLAGS := -X github.com/hplopt/hplopt/optimizer.version=$(VERSION)

.PHONY: all deps build run test faults fuzz gpu bench bench-cpu reference clean

all: build

# deps installs the OpenCL headers, the ICD loader and PoCL (a CPU OpenCL
# that every machine can run) when they are missing.
deps:
	@if ! dpkg -s $(PKGS) >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing $(PKGS)"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(PKGS) >/dev/null; \
		else \
			echo "missing packages: run as root, or: sudo apt-get install -y $(PKGS)"; exit 1; \
		fi; \
	fi

build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/hplopt ./cmd/hplopt

# run: list the devices, check the default one, then tune MATMUL for about
# a minute on the best device found (the first GPU, else the CPU).
run: build
	./bin/hplopt devices
	./bin/hplopt check
	./bin/hplopt tune matmul -n 256,256 -k 256 -t 60

test: deps
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

# faults runs the fault-injection suites on the OpenCL device (a few
# minutes): signals to hplopt tune and its worker, a full disk, workers that
# hang or crash while starting, building and running. Each prints its
# tally: faults injected, runs completed, measurements lost.
faults: deps
	$(GO) test -count=1 -timeout 30m -run '^TestFaults$$' -v ./runner ./cli -args -faults

# fuzz runs each fuzz target for FUZZTIME (their seed corpora run in make
# test); an input that fails is written to the package's testdata/fuzz.
FUZZTIME ?= 2m
FUZZ := ./optimizer:FuzzParseSettings ./transforms:FuzzParsePins ./transforms:FuzzRandomKernel \
	./kernels:FuzzParseSize ./cli:FuzzSizeList ./cli:FuzzArgs ./clc:FuzzLoad
fuzz: deps
	@set -e; for t in $(FUZZ); do \
		echo "$${t%%:*} $${t##*:}"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}"; \
	done

# gpu builds the binary that the GPU machine runs (it has no Go toolchain).
gpu: deps
	$(GO) build -ldflags "$(LDFLAGS) -s -w" -o .gpu/hplopt ./cmd/hplopt

# bench runs the benchmark suite at size S on the best device found and
# writes the tables and plots under bench-results/.
bench: build
	./bin/hplopt bench --sizes S -s random,genetic -t 30 --out bench-results

# reference builds the OpenBLAS SGEMM timer (bench/reference/openblas_sgemm.c)
# when OpenBLAS is installed (Debian/Ubuntu: libopenblas-dev).
reference:
	@if echo '#include <cblas.h>' | $(CC) -E - >/dev/null 2>&1; then \
		mkdir -p bin && $(CC) -O2 -o bin/openblas_sgemm bench/reference/openblas_sgemm.c -lopenblas; \
	else \
		echo "OpenBLAS not installed (apt-get install libopenblas-dev): no CPU reference"; \
	fi

# bench-cpu runs the suite at size S on the CPU device and compares MATMUL
# with OpenBLAS SGEMM timed before and after it in the same run.
bench-cpu: build reference
	@mkdir -p bench-results-cpu
	@if [ -x bin/openblas_sgemm ]; then bin/openblas_sgemm 1024 > bench-results-cpu/openblas.txt; fi
	./bin/hplopt bench -d CPU --sizes S -s random,genetic -t 45 --out bench-results-cpu
	@if [ -x bin/openblas_sgemm ]; then \
		bin/openblas_sgemm 1024 >> bench-results-cpu/openblas.txt; \
		./bin/hplopt bench --report bench-results-cpu --reference bench-results-cpu/openblas.txt --out bench-results-cpu; \
	fi

clean:
	rm -rf bin
