"""The toolweave version (announced to clients and upstreams when a server sets none of its own)."""

VERSION = "0.1.0"
