"""The application layer: CLI, live and replay orchestration, match log, web UI."""
