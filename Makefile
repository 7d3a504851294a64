# SPDX-License-Identifier: MIT
# Thin wrapper over CMake. `make` builds build/npukit; `make test` builds a sanitized
# copy in build/san and runs ctest there (with the ggml backend's tests when the pinned ggml
# snapshot is present); `make demo` runs the simulator tour.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps demo test bench clean ggml

# Configure build dir $(1) with options $(2): the log is kept, shown in full on failure, and
# the build's choices (the simulator's arithmetic) are printed.
configure = @mkdir -p $(1) && if cmake -S . -B $(1) $(2) > $(1)/configure.log 2>&1; then \
	grep '^-- npukit:' $(1)/configure.log | sed 's/^-- //'; \
	else cat $(1)/configure.log; exit 1; fi

all: deps
	$(call configure,build,-DCMAKE_BUILD_TYPE=RelWithDebInfo)
	cmake --build build -j $(JOBS)

deps:
	@bash scripts/deps.sh

demo: all
	./build/npukit demo

# The ggml backend's tests: the pinned ggml snapshot unpacked and built once into build/ggml
# (reused by later runs), or a clear "SKIPPED" when ../shared/third_party has no tarball.
ggml:
	@JOBS=$(JOBS) bash scripts/ggml_tree.sh build/ggml

test: deps ggml
	$(call configure,build/san,-DNPUKIT_SANITIZE=ON -DNPUKIT_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $(shell cat build/ggml/cmake-flags))
	cmake --build build/san -j $(JOBS)
	cd build/san && ctest --output-on-failure -j $(JOBS)

bench: all
	@for b in build/bench_*; do echo "== $$b"; $$b || exit 1; done

clean:
	rm -rf build
