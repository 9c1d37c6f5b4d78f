"""A FastMCP server whose tool returns a list: FastMCP wraps it as `{"result": [...]}` and marks
the output schema `x-fastmcp-wrap-result`. Served over stdio.
"""

from fastmcp import FastMCP

mcp = FastMCP("lists")


@mcp.tool
def primes(n: int) -> list[int]:
    """The first n primes."""
    found: list[int] = []
    k = 2
    while len(found) < n:
        if all(k % p for p in found):
            found.append(k)
        k += 1
    return found


if __name__ == "__main__":
    mcp.run(show_banner=False)
