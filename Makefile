# One command each: `make demo` (set up + build the demo KG) and `make test` (set up + run tests).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-slow validity lint typecheck format bench bench-completeness bench-missingness bench-drift bench-grounding bench-agent clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# First run: build the demo KG and calibrate four topologies with the default completion
# model (zero-shot ULTRA + rules mined from the KG; no training); all cached, later runs
# answer in seconds.
demo: setup
	$(BIN)/kgrecall kg build-demo
	$(BIN)/kgrecall calibrate --kg demo --topologies 1p,2p,2i,2u --strata 1 --queries 400 --only-missing
	$(BIN)/kgrecall ask "Which genes are associated with Parkinson disease 4?" --level thorough --max-results 10

test: setup
	$(BIN)/python -m pytest -m "not slow" -q

test-slow: setup
	$(BIN)/python -m pytest -m slow -q

validity: setup
	$(BIN)/python -m pytest -m "slow or mutation" -q tests/calibration

lint: setup
	$(BIN)/ruff check kgrecall tests benchmarks scripts
	$(BIN)/ruff format --check kgrecall tests benchmarks scripts

typecheck: setup
	$(BIN)/mypy

format: setup
	$(BIN)/ruff format kgrecall tests benchmarks scripts
	$(BIN)/ruff check --fix kgrecall tests benchmarks scripts

bench: setup
	$(BIN)/python benchmarks/kg_io.py

# Calibrated recall vs target on UMLS and the demo KG (trains 8 predictors; about an hour).
bench-completeness: setup
	$(BIN)/python benchmarks/completeness.py --datasets umls demo

# Does the guarantee hold at 10, 25 and 40 % missing? 20 seeds × 9 topologies (about 1 h).
bench-missingness: setup
	$(BIN)/python benchmarks/missingness.py --datasets umls --model rules

# Ingestion in five batches, recalibration by policy, the monitor; a drift scenario.
bench-drift: setup
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/drift.py

# Grounding labels on claims generated from the demo KG and on written reports (about 1 min).
bench-grounding: setup
	$(BIN)/python benchmarks/grounding.py

# Planner exact match (templated and written questions), ask latency per level, HTTP throughput, command-line latency (after `make demo`; ~7 min).
bench-agent: setup
	$(BIN)/python benchmarks/planning.py
	$(BIN)/python benchmarks/planning_questions.py
	$(BIN)/python benchmarks/ask_latency.py --questions 60
	$(BIN)/python benchmarks/service.py --requests 200 --concurrency 50
	$(BIN)/python benchmarks/cli_latency.py --runs 5

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
