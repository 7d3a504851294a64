# Thin wrapper over CMake. `make` builds build/npukit; `make test` builds a sanitized
# copy in build/san and runs ctest there; `make demo` runs the simulator tour.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps demo test bench clean

all: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j $(JOBS)

deps:
	@bash scripts/deps.sh

demo: all
	./build/npukit demo

test: deps
	cmake -S . -B build/san -DNPUKIT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build/san -j $(JOBS)
	cd build/san && ctest --output-on-failure -j $(JOBS)

bench: all
	@for b in build/bench_*; do echo "== $$b"; $$b || exit 1; done

clean:
	rm -rf build
