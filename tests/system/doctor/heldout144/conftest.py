"""The corpus scripts are third-party training code, not tests: never collect them."""

collect_ignore_glob = ["files/*", "cache/*", "context/*"]
