"""A generated catalog: 40 kinds of record x 25 actions = 1,000 tools with distinct descriptions."""

from __future__ import annotations

from typing import Any

from toolweave import Server, Tool, ToolResult
from toolweave.core.content import TextContent

RECORDS = {
    "invoice": "a billing invoice sent to a customer",
    "customer": "a customer account with contact details",
    "order": "a purchase order placed in the shop",
    "product": "a product in the catalog with its price",
    "shipment": "a parcel shipment and its tracking number",
    "ticket": "a support ticket opened by a user",
    "employee": "an employee record in human resources",
    "payroll": "a monthly payroll run that pays salaries",
    "meeting": "a calendar meeting with attendees",
    "room": "a conference room that can be booked",
    "repository": "a git repository of source code",
    "branch": "a git branch of a repository",
    "pull_request": "a pull request proposing code changes",
    "build": "a continuous integration build job",
    "deployment": "a deployment of a service to production",
    "server": "a virtual machine server in the cloud",
    "bucket": "a storage bucket holding files",
    "database": "a relational database instance",
    "backup": "a snapshot backup of a database",
    "certificate": "a TLS certificate for a domain name",
    "domain": "an internet domain name and its DNS records",
    "email": "an email message in a mailbox",
    "newsletter": "a marketing newsletter sent to subscribers",
    "campaign": "an advertising campaign with a budget",
    "lead": "a sales lead from a prospect",
    "contract": "a signed legal contract with a vendor",
    "vendor": "a supplier vendor that sells goods",
    "warehouse": "a warehouse storing stock",
    "inventory": "stock inventory levels of items",
    "recipe": "a cooking recipe with ingredients",
    "playlist": "a music playlist of songs",
    "photo": "a photo image in an album",
    "document": "a shared text document for collaborative writing",
    "spreadsheet": "a spreadsheet with rows and formulas",
    "survey": "a questionnaire survey with answers",
    "course": "an online training course with lessons",
    "patient": "a hospital patient medical record",
    "appointment": "a doctor appointment slot",
    "vehicle": "a fleet vehicle with mileage",
    "flight": "an airline flight reservation",
}

ACTIONS = {
    "create": "Create a new {}.",
    "get": "Fetch one {} by its identifier and show its details.",
    "list": "List every {} matching optional filters, page by page.",
    "update": "Change fields of an existing {}.",
    "delete": "Permanently remove {} so it cannot be recovered.",
    "archive": "Archive {}: move it out of the active list without deleting it.",
    "restore": "Restore {} from the archive back to the active list.",
    "export": "Export {} to a CSV file for download.",
    "import": "Import {} records from an uploaded CSV file.",
    "share": "Share {} with a colleague by granting access.",
    "comment": "Add a written comment note to {}.",
    "tag": "Attach labels (tags) to {} for grouping.",
    "search": "Full-text search across {} contents by keywords.",
    "count": "Count how many of {} exist, as a number statistic.",
    "approve": "Approve {} after review so it goes ahead.",
    "reject": "Reject {} after review with a reason.",
    "assign": "Assign {} to an owner who becomes responsible.",
    "schedule": "Schedule {} for a later date and time.",
    "notify": "Send a push notification alert about {}.",
    "duplicate": "Make an identical copy (clone) of {}.",
    "lock": "Lock {} so nobody can edit it.",
    "audit": "Show the audit log history of changes to {}.",
    "merge": "Merge two duplicates of {} into one.",
    "validate": "Check {} for errors and report problems.",
    "summarize": "Write a short summary of {}.",
}

QUERIES = {
    "move an old billing invoice out of the active list without deleting it": "archive_invoice",
    "clone a cooking recipe": "duplicate_recipe",
    "how many hospital patients are there": "count_patient",
    "send an alert when a parcel shipment changes": "notify_shipment",
    "give a colleague access to a spreadsheet": "share_spreadsheet",
    "reserve a conference room at a later date and time": "schedule_room",
    "who changed the TLS certificate, show history": "audit_certificate",
    "permanently remove a storage bucket": "delete_bucket",
    "combine two duplicate customer accounts": "merge_customer",
    "approve a pull request after code review": "approve_pull_request",
    "download all employees as a CSV file": "export_employee",
    "upload a CSV of sales leads from prospects": "import_lead",
    "label playlists of songs with tags": "tag_playlist",
    "write a short summary of a signed vendor contract": "summarize_contract",
    "prevent anyone from editing a shared text document": "lock_document",
    "bring a database snapshot backup back from the archive": "restore_backup",
    "reject an advertising campaign and give a reason": "reject_campaign",
    "make someone responsible for a support ticket": "assign_ticket",
    "check an airline flight reservation for errors": "validate_flight",
    "search the online training courses for keywords": "search_course",
}


def make_tool(action: str, record: str) -> Tool:
    """One generated tool, answering with its own name and arguments."""
    name = f"{action}_{record}"

    async def run(arguments: dict[str, Any], ctx: Any) -> ToolResult:
        return ToolResult([TextContent(f"{name}: {sorted(arguments.items())}")], {"tool": name, **arguments})

    return Tool(
        name=name,
        description=ACTIONS[action].format(RECORDS[record]),
        input_schema={
            "type": "object",
            "properties": {f"{record}_id": {"type": "string", "description": f"The id of {RECORDS[record]}."}},
            "required": [f"{record}_id"],
        },
        output_schema={"type": "object", "properties": {"tool": {"type": "string"}}, "required": ["tool"]},
        run=run,
    )


def catalog_server(records: int = len(RECORDS), copies: int = 1) -> Server:
    """A server with `records` x 25 generated tools (`copies` times, suffixed, for larger catalogs)."""
    server = Server("big")
    for copy in range(copies):
        for record in list(RECORDS)[:records]:
            for action in ACTIONS:
                tool = make_tool(action, record)
                server.add_tool(tool if copy == 0 else tool.replace(name=f"{tool.name}_{copy}"))
    return server
