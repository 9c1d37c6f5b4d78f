"""Prompts and resources beside tools, with a mounted server: run it and connect any MCP client.

python examples/prompts_and_resources.py               # stdio
python examples/prompts_and_resources.py http 8000     # http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import sys

from toolweave import Context, Message, Server

billing = Server("billing")


@billing.prompt
def dunning(customer: str, days_overdue: int = 30) -> str:
    """Draft a friendly payment reminder.

    Args:
        customer: who to remind
        days_overdue: how late the payment is
    """
    return f"Write a friendly reminder to {customer}: their invoice is {days_overdue} days overdue."


@billing.resource("resource://invoices/{number}", mime_type="application/json")
def invoice(number: int) -> dict[str, object]:
    """One invoice, by number."""
    return {"number": number, "total": 120.5, "currency": "EUR"}


server = Server("helpdesk", instructions="Answer support questions.")


@server.prompt(title="Code review")
async def review(code: str, ctx: Context, strict: bool = False) -> list[Message]:
    """Ask for a review of a piece of code."""
    await ctx.info("building a review prompt")
    tone = "Be strict." if strict else "Be kind."
    return [
        Message(f"Review this code. {tone}\n\n{code}"),
        Message("Sure, let me read it.", role="assistant"),
    ]


@server.resource("resource://faq", description="Frequently asked questions.")
def faq() -> str:
    return "Q: How do I pay?\nA: By card or transfer."


@server.resource("weather://{city}/{day}")
def weather(city: str, day: str) -> dict[str, str]:
    """The forecast for a city and a day."""
    return {"city": city, "day": day, "sky": "clear"}


server.mount(billing, prefix="billing")  # prompt `billing_dunning`, template `resource://billing/invoices/{number}`

if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
