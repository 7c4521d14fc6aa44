# Recipes for people with `just`; each is one plain command, so nothing here is required.

# Run the service (SQLite under ./data, no other set-up).
run:
    cargo run --release

# Run every test; set TEST_DATABASE_URL to include the PostgreSQL suite.
test:
    cargo test --workspace

# Format check and lints, as CI runs them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# The whole CI script, locally.
ci:
    bash .ci/run

# Benchmarks (each prints its figures; see docs/performance.md).
bench:
    cargo run --release -p leadhub-domain --example dedupe_quality
