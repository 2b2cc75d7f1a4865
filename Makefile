# The two commands of the README:
#   make demo   install what is missing, build, simulate examples/rectifier.cir, write CSV + plot
#   make test   install what is missing, build, run the whole test suite through ctest
# Others: make build, make sanitize (ASan+UBSan build and tests), make sanitize-ci (the subset CI
# runs), make bench, make format, make clean
BUILD   ?= build
JOBS    ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DNSSPICE_WERROR=ON
DEMO    ?= examples/rectifier.cir
OUT     ?= out

.PHONY: deps build demo test sanitize sanitize-ci bench format clean fuzz screenshots

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@mkdir -p $(OUT)
	./$(BUILD)/nsspice run $(DEMO) -o $(OUT)/rectifier.csv --plot $(OUT)/rectifier.png --signals 'v(in),v(out),i(d1)'
	@echo
	@echo "waveforms: $(OUT)/rectifier.csv"
	@echo "plot:      $(OUT)/rectifier.png"

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNSSPICE_WERROR=ON -DNSSPICE_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

# What CI runs under ASan+UBSan within its time (.ci/run time-boxes it): the unit tests of
# netlist/, solvers/ and circuit/, without the whole-corpus sweep of every solver on every stored
# problem (minutes at -O0 under the sanitizers; the smaller solver tests run the same code). The
# regression and app tests run under the sanitizers with `make sanitize`.
SANITIZE_CI_TARGETS = test_netlist test_solvers test_circuit
SANITIZE_CI_SKIP = ^(LcpSuite\.EverySolverOnEveryStoredProblem)$$
sanitize-ci: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNSSPICE_WERROR=ON -DNSSPICE_SANITIZE=ON
	cmake --build build-asan -j $(JOBS) --target $(SANITIZE_CI_TARGETS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) -L 'netlist|solvers|circuit' -E '$(SANITIZE_CI_SKIP)'

bench: build
	@bash scripts/install-deps.sh --peers
	python3 bench/run_bench.py --build $(BUILD)

# libFuzzer (clang) over parse + flatten + elaborate for FUZZ_SECONDS; new inputs and crash
# reproducers go to build-fuzz/ (corpus/, crash-*). Seeds: examples/ and tests/netlist/corpus/.
FUZZ_SECONDS ?= 600
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSSPICE_FUZZ=ON -DNSSPICE_TESTS=OFF
	cmake --build build-fuzz -j $(JOBS) --target fuzz_netlist
	@mkdir -p build-fuzz/corpus
	cd build-fuzz && ./fuzz/fuzz_netlist -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=2048 -dict=../fuzz/netlist.dict -print_final_stats=1 \
	  corpus ../examples ../tests/netlist/corpus/good ../tests/netlist/corpus/bad

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) build-asan $(OUT)

# The pictures of docs/output.md (plots and the waveform viewer), regenerated from the examples.
screenshots: build
	BUILD=$(BUILD) bash scripts/docs-screenshots.sh
