"""Writes github.json and payments.json: realistic tool sets for the
golden tests (a GitHub-like MCP server with 100+ tools, a payments API).
Run it from this directory after changing it; the JSON is committed."""

import json

OWNER = {"type": "string", "description": "The account owner of the repository (user or organization)."}
REPO = {"type": "string", "description": "The name of the repository, without the .git extension."}
PAGE = {"type": "integer", "minimum": 1, "default": 1, "description": "Page number of the results to fetch."}
PER_PAGE = {"type": "integer", "minimum": 1, "maximum": 100, "default": 30, "description": "Results per page (max 100)."}
DIRECTION = {"type": "string", "enum": ["asc", "desc"], "default": "desc", "description": "The direction of the sort."}
STATE = {"type": "string", "enum": ["open", "closed", "all"], "default": "open", "description": "Filter by state."}
SINCE = {"type": "string", "format": "date-time", "description": "Only results updated at or after this time (ISO 8601)."}
SHA = {"type": "string", "pattern": "^[0-9a-f]{40}$", "description": "A full commit SHA."}

USER = {
    "type": "object",
    "properties": {
        "login": {"type": "string"},
        "id": {"type": "integer"},
        "type": {"type": "string", "enum": ["User", "Organization", "Bot"]},
        "site_admin": {"type": "boolean"},
    },
    "required": ["login", "id"],
}
LABEL = {
    "oneOf": [
        {"type": "string", "description": "A label name."},
        {
            "type": "object",
            "title": "LabelSpec",
            "properties": {
                "name": {"type": "string"},
                "color": {"type": "string", "pattern": "^[0-9a-fA-F]{6}$", "description": "Hex color without the leading #."},
                "description": {"type": ["string", "null"]},
            },
            "required": ["name"],
        },
    ]
}
ISSUE_OUT = {
    "type": "object",
    "properties": {
        "number": {"type": "integer"},
        "title": {"type": "string"},
        "state": {"type": "string", "enum": ["open", "closed"]},
        "state_reason": {"type": ["string", "null"], "enum": ["completed", "not_planned", "reopened", None]},
        "html_url": {"type": "string", "format": "uri"},
        "user": USER,
        "labels": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "color": {"type": "string"}}, "required": ["name"]}},
        "assignees": {"type": "array", "items": USER},
        "body": {"type": "string", "nullable": True},
        "created_at": {"type": "string", "format": "date-time"},
    },
    "required": ["number", "title", "state", "html_url"],
}


def repo_props(**more):
    props = {"owner": OWNER, "repo": REPO}
    props.update(more)
    return props


def obj(props, required=(), **extra):
    s = {"type": "object", "properties": props}
    if required:
        s["required"] = list(required)
    s.update(extra)
    return s


tools = []


def tool(name, description, schema, output=None):
    t = {"name": "github." + name, "description": description, "inputSchema": schema}
    if output is not None:
        t["outputSchema"] = output
    tools.append(t)


def crud(resource, plural, key, key_schema, fields, required_fields, list_filters=None, update_only=None):
    """list/get/create/update/delete tools of one repository resource."""
    lf = {"page": PAGE, "per_page": PER_PAGE}
    lf.update(list_filters or {})
    tool(f"list_{plural}", f"List the {plural.replace('_', ' ')} of a repository.", obj(repo_props(**lf), ["owner", "repo"]))
    tool(f"get_{resource}", f"Get one {resource.replace('_', ' ')} of a repository by its {key}.", obj(repo_props(**{key: key_schema}), ["owner", "repo", key]))
    tool(f"create_{resource}", f"Create a {resource.replace('_', ' ')} in a repository.", obj(repo_props(**fields), ["owner", "repo", *required_fields]))
    upd = dict(fields)
    upd.update(update_only or {})
    tool(f"update_{resource}", f"Update a {resource.replace('_', ' ')}; only the fields given change.", obj(repo_props(**{**upd, key: key_schema}), ["owner", "repo", key]))
    tool(f"delete_{resource}", f"Delete a {resource.replace('_', ' ')}. This cannot be undone.", obj(repo_props(**{key: key_schema}), ["owner", "repo", key]))


# Issues
tool(
    "create_issue",
    "Create a new issue in a repository.\n\nThe authenticated user needs push access to set labels, assignees or a milestone; otherwise they are silently dropped.",
    obj(
        repo_props(
            title={"type": "string", "minLength": 1, "description": "The title of the issue."},
            body={"type": "string", "description": "The contents of the issue, in GitHub Markdown."},
            assignees={"type": "array", "items": {"type": "string"}, "description": "Logins of users to assign."},
            milestone={"type": ["integer", "string", "null"], "description": "The number of the milestone, or its title; null removes it."},
            labels={"type": "array", "items": LABEL, "description": "Labels: names, or new labels with a color."},
            type={"type": "string", "description": "The name of the issue type (organizations only)."},
        ),
        ["owner", "repo", "title"],
    ),
    ISSUE_OUT,
)
tool("get_issue", "Get an issue by its number.", obj(repo_props(issue_number={"type": "integer"}), ["owner", "repo", "issue_number"]), ISSUE_OUT)
tool(
    "update_issue",
    "Update an issue: title, body, state, labels, assignees or milestone.",
    obj(
        repo_props(
            issue_number={"type": "integer"},
            title={"type": ["string", "null"]},
            body={"type": ["string", "null"]},
            state={"type": "string", "enum": ["open", "closed"]},
            state_reason={"type": ["string", "null"], "enum": ["completed", "not_planned", "reopened", None]},
            labels={"type": "array", "items": LABEL},
            assignees={"type": "array", "items": {"type": "string"}},
        ),
        ["owner", "repo", "issue_number"],
    ),
    ISSUE_OUT,
)
tool(
    "list_issues",
    "List issues of a repository. Pull requests are issues too; filter them out with the pull_request key of each result.",
    obj(
        repo_props(
            milestone={"type": "string", "description": "A milestone number, or \"*\" for any, or \"none\"."},
            state=STATE,
            assignee={"type": "string"},
            creator={"type": "string"},
            mentioned={"type": "string"},
            labels={"type": "string", "description": "Comma-separated label names, e.g. \"bug,ui,@high\"."},
            sort={"type": "string", "enum": ["created", "updated", "comments"], "default": "created"},
            direction=DIRECTION,
            since=SINCE,
            page=PAGE,
            per_page=PER_PAGE,
        ),
        ["owner", "repo"],
    ),
    {"type": "object", "properties": {"items": {"type": "array", "items": ISSUE_OUT}, "total_count": {"type": "integer"}}, "required": ["items"]},
)
tool("lock_issue", "Lock an issue's conversation.", obj(repo_props(issue_number={"type": "integer"}, lock_reason={"type": "string", "enum": ["off-topic", "too heated", "resolved", "spam"]}), ["owner", "repo", "issue_number"]))
tool("unlock_issue", "Unlock an issue's conversation.", obj(repo_props(issue_number={"type": "integer"}), ["owner", "repo", "issue_number"]))
tool("add_assignees", "Add up to 10 assignees to an issue.", obj(repo_props(issue_number={"type": "integer"}, assignees={"type": "array", "items": {"type": "string"}, "maxItems": 10}), ["owner", "repo", "issue_number", "assignees"]))
tool("remove_assignees", "Remove assignees from an issue.", obj(repo_props(issue_number={"type": "integer"}, assignees={"type": "array", "items": {"type": "string"}}), ["owner", "repo", "issue_number", "assignees"]))
tool("add_labels", "Add labels to an issue.", obj(repo_props(issue_number={"type": "integer"}, labels={"type": "array", "items": LABEL, "minItems": 1}), ["owner", "repo", "issue_number", "labels"]))
tool("remove_label", "Remove one label from an issue.", obj(repo_props(issue_number={"type": "integer"}, name={"type": "string"}), ["owner", "repo", "issue_number", "name"]))
tool("list_issue_events", "List the events of an issue (labeled, assigned, closed, ...).", obj(repo_props(issue_number={"type": "integer"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "issue_number"]))
tool("get-issue-timeline", "Get the timeline of an issue: comments, events and cross-references in order.", obj(repo_props(issue_number={"type": "integer"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "issue_number"]))

# Comments
crud(
    "issue_comment",
    "issue_comments",
    "comment_id",
    {"type": "integer", "format": "int64"},
    {"issue_number": {"type": "integer"}, "body": {"type": "string", "description": "The comment, in GitHub Markdown."}},
    ["issue_number", "body"],
    {"since": SINCE, "sort": {"type": "string", "enum": ["created", "updated"]}, "direction": DIRECTION},
)

# Reactions: enum values that are no identifiers
REACTION = {"type": "string", "enum": ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"], "description": "The reaction."}
tool("create_reaction", "React to an issue, a pull request or a comment.", obj(repo_props(subject={"oneOf": [
    {"type": "object", "properties": {"kind": {"const": "issue"}, "issue_number": {"type": "integer"}}, "required": ["kind", "issue_number"]},
    {"type": "object", "properties": {"kind": {"const": "issue_comment"}, "comment_id": {"type": "integer"}}, "required": ["kind", "comment_id"]},
    {"type": "object", "properties": {"kind": {"const": "review_comment"}, "comment_id": {"type": "integer"}}, "required": ["kind", "comment_id"]},
]}, content=REACTION), ["owner", "repo", "subject", "content"]))
tool("list_reactions", "List the reactions to an issue.", obj(repo_props(issue_number={"type": "integer"}, content=REACTION), ["owner", "repo", "issue_number"]))
tool("delete_reaction", "Delete a reaction.", obj(repo_props(issue_number={"type": "integer"}, reaction_id={"type": "integer"}), ["owner", "repo", "issue_number", "reaction_id"]))

# Labels and milestones
crud("label", "labels", "name", {"type": "string"}, {"name": {"type": "string"}, "color": {"type": "string", "pattern": "^[0-9a-fA-F]{6}$"}, "description": {"type": "string", "maxLength": 100}}, ["name"], update_only={"new_name": {"type": "string"}})
crud(
    "milestone",
    "milestones",
    "milestone_number",
    {"type": "integer"},
    {"title": {"type": "string"}, "state": {"type": "string", "enum": ["open", "closed"], "default": "open"}, "description": {"type": "string"}, "due_on": {"type": "string", "format": "date-time"}},
    ["title"],
    {"state": STATE, "sort": {"type": "string", "enum": ["due_on", "completeness"], "default": "due_on"}, "direction": DIRECTION},
)

# Pull requests
PR_OUT = {
    "type": "object",
    "properties": {
        "number": {"type": "integer"},
        "state": {"type": "string", "enum": ["open", "closed"]},
        "draft": {"type": "boolean"},
        "merged": {"type": "boolean"},
        "mergeable": {"type": ["boolean", "null"]},
        "head": {"$ref": "#/$defs/ref"},
        "base": {"$ref": "#/$defs/ref"},
        "requested_reviewers": {"type": "array", "items": {"anyOf": [USER, {"type": "object", "properties": {"slug": {"type": "string"}, "name": {"type": "string"}}, "required": ["slug"]}]}},
    },
    "required": ["number", "state", "head", "base"],
    "$defs": {"ref": {"type": "object", "description": "A branch of a repository.", "properties": {"ref": {"type": "string"}, "sha": SHA, "label": {"type": "string"}}, "required": ["ref", "sha"]}},
}
tool("create_pull_request", "Open a pull request from head into base.", obj(repo_props(
    title={"type": "string"},
    head={"type": "string", "description": "The branch with your changes; \"user:branch\" for a branch of a fork."},
    head_repo={"type": "string"},
    base={"type": "string", "description": "The branch to merge into."},
    body={"type": "string"},
    draft={"type": "boolean", "default": False},
    maintainer_can_modify={"type": "boolean", "default": True},
    issue={"type": "integer", "description": "Turn this issue into the pull request (instead of title and body).", "deprecated": True},
), ["owner", "repo", "head", "base"]), PR_OUT)
tool("get_pull_request", "Get a pull request.", obj(repo_props(pull_number={"type": "integer"}), ["owner", "repo", "pull_number"]), PR_OUT)
tool("update_pull_request", "Update a pull request.", obj(repo_props(pull_number={"type": "integer"}, title={"type": "string"}, body={"type": "string"}, state={"type": "string", "enum": ["open", "closed"]}, base={"type": "string"}, maintainer_can_modify={"type": "boolean"}), ["owner", "repo", "pull_number"]), PR_OUT)
tool("list_pull_requests", "List pull requests.", obj(repo_props(state=STATE, head={"type": "string"}, base={"type": "string"}, sort={"type": "string", "enum": ["created", "updated", "popularity", "long-running"], "default": "created"}, direction=DIRECTION, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("merge_pull_request", "Merge a pull request.", obj(repo_props(
    pull_number={"type": "integer"},
    commit_title={"type": "string"},
    commit_message={"type": "string"},
    sha={**SHA, "description": "The SHA the head must match to allow the merge."},
    merge_method={"type": "string", "enum": ["merge", "squash", "rebase"], "default": "merge"},
), ["owner", "repo", "pull_number"]), {"type": "object", "properties": {"sha": {"type": "string"}, "merged": {"type": "boolean"}, "message": {"type": "string"}}, "required": ["merged", "message"]})
tool("list_pull_request_files", "List the files a pull request changes (at most 3000).", obj(repo_props(pull_number={"type": "integer"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "pull_number"]),
     {"type": "array", "items": {"type": "object", "properties": {"filename": {"type": "string"}, "status": {"type": "string", "enum": ["added", "removed", "modified", "renamed", "copied", "changed", "unchanged"]}, "additions": {"type": "integer"}, "deletions": {"type": "integer"}, "patch": {"type": "string"}}, "required": ["filename", "status"]}})
tool("list_pull_request_commits", "List the commits of a pull request.", obj(repo_props(pull_number={"type": "integer"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "pull_number"]))
tool("request_reviewers", "Request reviews from users or teams.", obj(repo_props(pull_number={"type": "integer"}, reviewers={"type": "array", "items": {"type": "string"}}, team_reviewers={"type": "array", "items": {"type": "string"}}), ["owner", "repo", "pull_number"]))
tool("create_review", "Create a review of a pull request, with comments on lines of the diff.", obj(repo_props(
    pull_number={"type": "integer"},
    commit_id=SHA,
    body={"type": "string"},
    event={"type": "string", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"], "description": "Leave it out to create a pending review."},
    comments={"type": "array", "items": {"type": "object", "properties": {
        "path": {"type": "string", "description": "The file's path relative to the repository root."},
        "position": {"type": "integer", "deprecated": True},
        "body": {"type": "string"},
        "line": {"type": "integer"},
        "side": {"type": "string", "enum": ["LEFT", "RIGHT"]},
        "start_line": {"type": "integer"},
        "start_side": {"type": "string", "enum": ["LEFT", "RIGHT", "side"]},
    }, "required": ["path", "body"]}},
), ["owner", "repo", "pull_number"]))
tool("list_reviews", "List the reviews of a pull request.", obj(repo_props(pull_number={"type": "integer"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "pull_number"]))
tool("submit_review", "Submit a pending review.", obj(repo_props(pull_number={"type": "integer"}, review_id={"type": "integer"}, body={"type": "string"}, event={"type": "string", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"]}), ["owner", "repo", "pull_number", "review_id", "event"]))
tool("dismiss_review", "Dismiss a review.", obj(repo_props(pull_number={"type": "integer"}, review_id={"type": "integer"}, message={"type": "string"}), ["owner", "repo", "pull_number", "review_id", "message"]))
tool("update_pull_request_branch", "Bring a pull request's branch up to date with its base.", obj(repo_props(pull_number={"type": "integer"}, expected_head_sha=SHA), ["owner", "repo", "pull_number"]))

# Repositories
REPO_SETTINGS = {
    "description": {"type": "string"},
    "homepage": {"type": "string", "format": "uri"},
    "private": {"type": "boolean", "default": False},
    "visibility": {"type": "string", "enum": ["public", "private", "internal"]},
    "has_issues": {"type": "boolean", "default": True},
    "has_projects": {"type": "boolean", "default": True},
    "has_wiki": {"type": "boolean", "default": True},
    "allow_squash_merge": {"type": "boolean"},
    "allow_merge_commit": {"type": "boolean"},
    "allow_rebase_merge": {"type": "boolean"},
    "delete_branch_on_merge": {"type": "boolean", "default": False},
    "security_and_analysis": {"type": ["object", "null"], "properties": {
        "advanced_security": {"type": "object", "properties": {"status": {"type": "string", "enum": ["enabled", "disabled"]}}},
        "secret_scanning": {"type": "object", "properties": {"status": {"type": "string", "enum": ["enabled", "disabled"]}}},
    }},
}
tool("create_repository", "Create a repository for the authenticated user, or in an organization.", obj({
    "name": {"type": "string"},
    "org": {"type": "string", "description": "Create it in this organization instead."},
    **REPO_SETTINGS,
    "auto_init": {"type": "boolean", "default": False},
    "gitignore_template": {"type": "string"},
    "license_template": {"type": "string", "examples": ["mit", "apache-2.0"]},
}, ["name"]))
tool("get_repository", "Get a repository.", obj(repo_props(), ["owner", "repo"]))
tool("update_repository", "Update a repository's settings.", obj(repo_props(name={"type": "string"}, **REPO_SETTINGS, default_branch={"type": "string"}, archived={"type": "boolean"}), ["owner", "repo"]))
tool("delete_repository", "Delete a repository. Needs the delete_repo scope.", obj(repo_props(), ["owner", "repo"]))
tool("list_user_repositories", "List the repositories of a user.", obj({"username": {"type": "string"}, "type": {"type": "string", "enum": ["all", "owner", "member"], "default": "owner"}, "sort": {"type": "string", "enum": ["created", "updated", "pushed", "full_name"], "default": "full_name"}, "direction": DIRECTION, "page": PAGE, "per_page": PER_PAGE}, ["username"]))
tool("list_org_repositories", "List the repositories of an organization.", obj({"org": {"type": "string"}, "type": {"type": "string", "enum": ["all", "public", "private", "forks", "sources", "member"]}, "page": PAGE, "per_page": PER_PAGE}, ["org"]))
tool("fork_repository", "Fork a repository.", obj(repo_props(organization={"type": "string"}, name={"type": "string"}, default_branch_only={"type": "boolean"}), ["owner", "repo"]))
tool("list_forks", "List the forks of a repository.", obj(repo_props(sort={"type": "string", "enum": ["newest", "oldest", "stargazers", "watchers"], "default": "newest"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("list_languages", "The languages of a repository, with bytes of code each.", obj(repo_props(), ["owner", "repo"]), {"type": "object", "additionalProperties": {"type": "integer"}})
tool("list_topics", "The topics of a repository.", obj(repo_props(), ["owner", "repo"]), {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}, "required": ["names"]})
tool("replace_topics", "Replace all topics of a repository.", obj(repo_props(names={"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"}, "maxItems": 20}), ["owner", "repo", "names"]))
tool("list_contributors", "List the contributors of a repository, most commits first.", obj(repo_props(anon={"type": "boolean", "default": False}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("star_repository", "Star a repository.", obj(repo_props(), ["owner", "repo"]))
tool("unstar_repository", "Unstar a repository.", obj(repo_props(), ["owner", "repo"]))
tool("list_stargazers", "List the users who starred a repository.", obj(repo_props(page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("transfer_repository", "Transfer a repository to another user or organization.", obj(repo_props(new_owner={"type": "string"}, new_name={"type": "string"}, team_ids={"type": "array", "items": {"type": "integer"}}), ["owner", "repo", "new_owner"]))

# Branches, commits, contents, git data
tool("list_branches", "List branches.", obj(repo_props(protected={"type": "boolean"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("get_branch", "Get a branch.", obj(repo_props(branch={"type": "string"}), ["owner", "repo", "branch"]))
tool("create_branch", "Create a branch from a commit.", obj(repo_props(branch={"type": "string"}, from_sha=SHA), ["owner", "repo", "branch", "from_sha"]))
tool("rename_branch", "Rename a branch.", obj(repo_props(branch={"type": "string"}, new_name={"type": "string"}), ["owner", "repo", "branch", "new_name"]))
tool("update_branch_protection", "Protect a branch: required checks, reviews and restrictions.", obj(repo_props(
    branch={"type": "string"},
    required_status_checks={"type": ["object", "null"], "properties": {"strict": {"type": "boolean"}, "checks": {"type": "array", "items": {"type": "object", "properties": {"context": {"type": "string"}, "app_id": {"type": "integer"}}, "required": ["context"]}}}, "required": ["strict", "checks"]},
    enforce_admins={"type": ["boolean", "null"]},
    required_pull_request_reviews={"type": ["object", "null"], "properties": {"dismiss_stale_reviews": {"type": "boolean"}, "require_code_owner_reviews": {"type": "boolean"}, "required_approving_review_count": {"type": "integer", "minimum": 0, "maximum": 6}}},
    restrictions={"type": ["object", "null"], "properties": {"users": {"type": "array", "items": {"type": "string"}}, "teams": {"type": "array", "items": {"type": "string"}}, "apps": {"type": "array", "items": {"type": "string"}}}, "required": ["users", "teams"]},
), ["owner", "repo", "branch", "required_status_checks", "enforce_admins", "required_pull_request_reviews", "restrictions"]))
tool("list_commits", "List commits, newest first.", obj(repo_props(sha={"type": "string", "description": "A SHA or branch to start from."}, path={"type": "string"}, author={"type": "string"}, since=SINCE, until={"type": "string", "format": "date-time"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("get_commit", "Get a commit with its diff stats.", obj(repo_props(ref={"type": "string"}), ["owner", "repo", "ref"]))
tool("compare_commits", "Compare two commits: \"base...head\".", obj(repo_props(basehead={"type": "string", "examples": ["main...feature"]}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "basehead"]))
tool("get_file_contents", "Get a file or a directory listing. Files come base64-encoded.", obj(repo_props(path={"type": "string"}, ref={"type": "string", "description": "A branch, tag or SHA; the default branch when left out."}), ["owner", "repo", "path"]),
     {"oneOf": [
         {"type": "object", "title": "File", "properties": {"type": {"const": "file"}, "encoding": {"const": "base64"}, "size": {"type": "integer"}, "name": {"type": "string"}, "path": {"type": "string"}, "content": {"type": "string"}, "sha": {"type": "string"}}, "required": ["type", "content", "sha"]},
         {"type": "array", "title": "Directory", "items": {"type": "object", "properties": {"type": {"type": "string", "enum": ["file", "dir", "symlink", "submodule"]}, "name": {"type": "string"}, "path": {"type": "string"}}, "required": ["type", "name", "path"]}},
     ]})
tool("create_or_update_file", "Create or replace a file in one commit.", obj(repo_props(
    path={"type": "string"},
    message={"type": "string", "description": "The commit message."},
    content={"type": "string", "contentEncoding": "base64", "description": "The new file content, base64-encoded."},
    sha={"type": "string", "description": "The blob SHA of the file being replaced (required to update)."},
    branch={"type": "string"},
    committer={"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}, "date": {"type": "string", "format": "date-time"}}, "required": ["name", "email"]},
), ["owner", "repo", "path", "message", "content"]))
tool("delete_file", "Delete a file in one commit.", obj(repo_props(path={"type": "string"}, message={"type": "string"}, sha={"type": "string"}, branch={"type": "string"}), ["owner", "repo", "path", "message", "sha"]))
tool("push_files", "Commit several files at once to a branch.", obj(repo_props(branch={"type": "string"}, message={"type": "string"}, files={"type": "array", "minItems": 1, "items": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}), ["owner", "repo", "branch", "message", "files"]))
tool("create_tree", "Create a git tree; each entry gives content or an existing object's SHA.", obj(repo_props(
    base_tree={"type": "string"},
    tree={"type": "array", "items": {"allOf": [
        {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string", "enum": ["100644", "100755", "040000", "160000", "120000"]}, "type": {"type": "string", "enum": ["blob", "tree", "commit"]}}, "required": ["path", "mode", "type"]},
        {"oneOf": [
            {"type": "object", "properties": {"sha": {"type": ["string", "null"]}}, "required": ["sha"]},
            {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
        ]},
    ]}},
), ["owner", "repo", "tree"]))
tool("get_tree", "Get a git tree, optionally recursively.", obj(repo_props(tree_sha={"type": "string"}, recursive={"type": "boolean"}), ["owner", "repo", "tree_sha"]),
     {"$ref": "#/$defs/tree", "$defs": {"tree": {"type": "object", "properties": {"sha": {"type": "string"}, "truncated": {"type": "boolean"}, "tree": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "type": {"type": "string"}, "sha": {"type": "string"}, "subtree": {"$ref": "#/$defs/tree"}}, "required": ["path", "type", "sha"]}}}, "required": ["sha", "tree"]}}})
tool("create_tag", "Create an annotated tag object and its reference.", obj(repo_props(tag={"type": "string"}, message={"type": "string"}, object=SHA, type={"type": "string", "enum": ["commit", "tree", "blob"]}, tagger={"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}, "date": {"type": "string", "format": "date-time"}}}), ["owner", "repo", "tag", "message", "object", "type"]))
tool("list_tags", "List the tags of a repository.", obj(repo_props(page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))

# Releases
crud("release", "releases", "release_id", {"type": "integer"}, {
    "tag_name": {"type": "string"},
    "target_commitish": {"type": "string"},
    "name": {"type": "string"},
    "body": {"type": "string"},
    "draft": {"type": "boolean", "default": False},
    "prerelease": {"type": "boolean", "default": False},
    "make_latest": {"type": "string", "enum": ["true", "false", "legacy"], "default": "true"},
    "generate_release_notes": {"type": "boolean", "default": False},
}, ["tag_name"])
tool("get_latest_release", "Get the latest published full release.", obj(repo_props(), ["owner", "repo"]))

# Search: enums, qualifiers as a nested object, a union result
SEARCH_ORDER = {"type": "string", "enum": ["desc", "asc"], "default": "desc"}
tool("search_repositories", "Search repositories.", obj({"q": {"type": "string", "description": "Search words and qualifiers, e.g. \"tetris language:assembly\"."}, "sort": {"type": "string", "enum": ["stars", "forks", "help-wanted-issues", "updated"]}, "order": SEARCH_ORDER, "page": PAGE, "per_page": PER_PAGE}, ["q"]))
tool("search_code", "Search code in the default branches of repositories.", obj({"q": {"type": "string"}, "sort": {"const": "indexed", "deprecated": True}, "order": SEARCH_ORDER, "page": PAGE, "per_page": PER_PAGE}, ["q"]))
tool("search_issues", "Search issues and pull requests.", obj({
    "q": {"type": "string"},
    "qualifiers": {"type": "object", "description": "Qualifiers added to q.", "properties": {
        "is": {"type": "array", "items": {"type": "string", "enum": ["issue", "pr", "open", "closed", "merged", "draft", "locked"]}},
        "repo": {"type": "string"},
        "author": {"type": "string"},
        "label": {"type": "array", "items": {"type": "string"}},
        "created": {"anyOf": [{"type": "string", "format": "date"}, {"type": "object", "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}}}]},
        "in": {"type": "string", "enum": ["title", "body", "comments"]},
    }},
    "sort": {"type": "string", "enum": ["comments", "reactions", "reactions-+1", "reactions--1", "reactions-smile", "interactions", "created", "updated"]},
    "order": SEARCH_ORDER,
    "page": PAGE,
    "per_page": PER_PAGE,
}, ["q"]), {"type": "object", "properties": {"total_count": {"type": "integer"}, "incomplete_results": {"type": "boolean"}, "items": {"type": "array", "items": ISSUE_OUT}}, "required": ["total_count", "items"]})
tool("search_users", "Search users.", obj({"q": {"type": "string"}, "sort": {"type": "string", "enum": ["followers", "repositories", "joined"]}, "order": SEARCH_ORDER, "page": PAGE, "per_page": PER_PAGE}, ["q"]))
tool("search_commits", "Search commits.", obj({"q": {"type": "string"}, "sort": {"type": "string", "enum": ["author-date", "committer-date"]}, "order": SEARCH_ORDER, "page": PAGE, "per_page": PER_PAGE}, ["q"]))

# Users, orgs, teams
tool("get_me", "Get the authenticated user.", {"type": "object", "properties": {}}, USER)
tool("get_user", "Get a user by login.", obj({"username": {"type": "string"}}, ["username"]), USER)
tool("list_followers", "List a user's followers.", obj({"username": {"type": "string"}, "page": PAGE, "per_page": PER_PAGE}, ["username"]))
tool("get_organization", "Get an organization.", obj({"org": {"type": "string"}}, ["org"]))
tool("list_org_members", "List the members of an organization.", obj({"org": {"type": "string"}, "filter": {"type": "string", "enum": ["2fa_disabled", "all"], "default": "all"}, "role": {"type": "string", "enum": ["all", "admin", "member"], "default": "all"}, "page": PAGE, "per_page": PER_PAGE}, ["org"]))
tool("list_teams", "List the teams of an organization.", obj({"org": {"type": "string"}, "page": PAGE, "per_page": PER_PAGE}, ["org"]))
tool("create_team", "Create a team in an organization.", obj({"org": {"type": "string"}, "name": {"type": "string"}, "description": {"type": "string"}, "maintainers": {"type": "array", "items": {"type": "string"}}, "privacy": {"type": "string", "enum": ["secret", "closed"]}, "permission": {"type": "string", "enum": ["pull", "push"], "default": "pull", "deprecated": True}, "parent_team_id": {"type": "integer"}}, ["org", "name"]))
tool("add_team_member", "Add or update a team membership.", obj({"org": {"type": "string"}, "team_slug": {"type": "string"}, "username": {"type": "string"}, "role": {"type": "string", "enum": ["member", "maintainer"], "default": "member"}}, ["org", "team_slug", "username"]))
tool("list_collaborators", "List the collaborators of a repository.", obj(repo_props(affiliation={"type": "string", "enum": ["outside", "direct", "all"], "default": "all"}, permission={"type": "string", "enum": ["pull", "triage", "push", "maintain", "admin"]}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("add_collaborator", "Invite a collaborator to a repository.", obj(repo_props(username={"type": "string"}, permission={"type": "string", "default": "push"}), ["owner", "repo", "username"]))

# Actions
tool("list_workflows", "List the workflows of a repository.", obj(repo_props(page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("run_workflow", "Trigger a workflow_dispatch event.", obj(repo_props(
    workflow_id={"type": ["integer", "string"], "description": "The workflow's ID or its file name (e.g. \"main.yaml\")."},
    ref={"type": "string"},
    inputs={"type": "object", "maxProperties": 10, "additionalProperties": {"type": ["string", "number", "boolean"]}, "description": "Input keys and values of the workflow (at most 10)."},
), ["owner", "repo", "workflow_id", "ref"]))
tool("list_workflow_runs", "List workflow runs.", obj(repo_props(
    workflow_id={"type": ["integer", "string"]},
    actor={"type": "string"},
    branch={"type": "string"},
    event={"type": "string"},
    status={"type": "string", "enum": ["completed", "action_required", "cancelled", "failure", "neutral", "skipped", "stale", "success", "timed_out", "in_progress", "queued", "requested", "waiting", "pending"]},
    created={"type": "string", "description": "A date range, e.g. \">=2024-01-01\"."},
    page=PAGE,
    per_page=PER_PAGE,
), ["owner", "repo"]))
tool("get_workflow_run", "Get a workflow run.", obj(repo_props(run_id={"type": "integer"}), ["owner", "repo", "run_id"]))
tool("cancel_workflow_run", "Cancel a workflow run.", obj(repo_props(run_id={"type": "integer"}), ["owner", "repo", "run_id"]))
tool("rerun_workflow", "Re-run a workflow run, or only its failed jobs.", obj(repo_props(run_id={"type": "integer"}, failed_only={"type": "boolean", "default": False}, enable_debug_logging={"type": "boolean", "default": False}), ["owner", "repo", "run_id"]))
tool("list_workflow_jobs", "List the jobs of a workflow run.", obj(repo_props(run_id={"type": "integer"}, filter={"type": "string", "enum": ["latest", "all"], "default": "latest"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "run_id"]))
tool("get_job_logs", "Get the logs of a job, as text.", obj(repo_props(job_id={"type": "integer"}, tail_lines={"type": "integer", "default": 500}), ["owner", "repo", "job_id"]), {"type": "object", "properties": {"logs": {"type": "string"}, "truncated": {"type": "boolean"}}, "required": ["logs"]})
tool("list_artifacts", "List the artifacts of a repository or of one run.", obj(repo_props(run_id={"type": "integer"}, name={"type": "string"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("download_artifact", "Get a URL to download an artifact from.", obj(repo_props(artifact_id={"type": "integer"}, archive_format={"const": "zip"}), ["owner", "repo", "artifact_id", "archive_format"]))
tool("create_or_update_secret", "Create or update an Actions secret; the value is encrypted with the repository's public key.", obj(repo_props(secret_name={"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"}, encrypted_value={"type": "string"}, key_id={"type": "string"}), ["owner", "repo", "secret_name", "encrypted_value", "key_id"]))
tool("list_secrets", "List the names of a repository's Actions secrets.", obj(repo_props(page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))

# Checks
tool("create_check_run", "Create a check run, with annotations on lines of files.", obj(repo_props(
    name={"type": "string"},
    head_sha=SHA,
    details_url={"type": "string", "format": "uri"},
    external_id={"type": "string"},
    status={"type": "string", "enum": ["queued", "in_progress", "completed"], "default": "queued"},
    conclusion={"type": "string", "enum": ["action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"], "description": "Required when status is completed."},
    output={"type": "object", "properties": {
        "title": {"type": "string"},
        "summary": {"type": "string", "maxLength": 65535},
        "text": {"type": "string"},
        "annotations": {"type": "array", "maxItems": 50, "items": {"type": "object", "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"},
            "annotation_level": {"type": "string", "enum": ["notice", "warning", "failure"]},
            "message": {"type": "string"},
            "title": {"type": "string"},
        }, "required": ["path", "start_line", "end_line", "annotation_level", "message"]}},
        "images": {"type": "array", "items": {"type": "object", "properties": {"alt": {"type": "string"}, "image_url": {"type": "string"}, "caption": {"type": "string"}}, "required": ["alt", "image_url"]}},
    }, "required": ["title", "summary"]},
    actions={"type": "array", "maxItems": 3, "items": {"type": "object", "properties": {"label": {"type": "string", "maxLength": 20}, "description": {"type": "string", "maxLength": 40}, "identifier": {"type": "string", "maxLength": 20}}, "required": ["label", "description", "identifier"]}},
), ["owner", "repo", "name", "head_sha"]))
tool("list_check_runs", "List the check runs of a ref.", obj(repo_props(ref={"type": "string"}, check_name={"type": "string"}, status={"type": "string", "enum": ["queued", "in_progress", "completed"]}, filter={"type": "string", "enum": ["latest", "all"], "default": "latest"}, page=PAGE, per_page=PER_PAGE), ["owner", "repo", "ref"]))
tool("get_combined_status", "The combined commit status of a ref.", obj(repo_props(ref={"type": "string"}), ["owner", "repo", "ref"]), {"type": "object", "properties": {"state": {"type": "string", "enum": ["failure", "pending", "success"]}, "total_count": {"type": "integer"}, "statuses": {"type": "array", "items": {"type": "object", "properties": {"context": {"type": "string"}, "state": {"type": "string", "enum": ["error", "failure", "pending", "success"]}, "target_url": {"type": ["string", "null"]}}, "required": ["context", "state"]}}}, "required": ["state", "statuses"]})

# Deployments and webhooks
tool("create_deployment", "Create a deployment of a ref.", obj(repo_props(
    ref={"type": "string"},
    task={"type": "string", "default": "deploy"},
    auto_merge={"type": "boolean", "default": True},
    required_contexts={"type": "array", "items": {"type": "string"}},
    payload={"oneOf": [{"type": "object", "additionalProperties": True}, {"type": "string"}], "description": "JSON payload with extra information for the deployment."},
    environment={"type": "string", "default": "production"},
    transient_environment={"type": "boolean", "default": False},
), ["owner", "repo", "ref"]))
tool("list_deployments", "List deployments.", obj(repo_props(sha={"type": "string"}, ref={"type": "string"}, task={"type": "string"}, environment={"type": ["string", "null"]}, page=PAGE, per_page=PER_PAGE), ["owner", "repo"]))
tool("create_deployment_status", "Create a status of a deployment.", obj(repo_props(deployment_id={"type": "integer"}, state={"type": "string", "enum": ["error", "failure", "inactive", "in_progress", "queued", "pending", "success"]}, log_url={"type": "string"}, description={"type": "string", "maxLength": 140}, environment_url={"type": "string"}), ["owner", "repo", "deployment_id", "state"]))
crud("webhook", "webhooks", "hook_id", {"type": "integer"}, {
    "name": {"const": "web"},
    "active": {"type": "boolean", "default": True},
    "events": {"type": "array", "items": {"type": "string"}, "default": ["push"]},
    "config": {"type": "object", "properties": {
        "url": {"type": "string", "format": "uri"},
        "content_type": {"type": "string", "enum": ["json", "form"], "default": "form"},
        "secret": {"type": "string", "writeOnly": True},
        "insecure_ssl": {"oneOf": [{"type": "string", "enum": ["0", "1"]}, {"type": "number", "enum": [0, 1]}]},
    }, "required": ["url"]},
}, ["config"])
tool("ping_webhook", "Send a ping event to a webhook.", obj(repo_props(hook_id={"type": "integer"}), ["owner", "repo", "hook_id"]))

# Gists and notifications (hyphenated names)
tool("list-gists", "List the authenticated user's gists.", obj({"since": SINCE, "page": PAGE, "per_page": PER_PAGE}))
tool("create-gist", "Create a gist of one or more files.", obj({
    "description": {"type": "string"},
    "public": {"oneOf": [{"type": "boolean", "default": False}, {"type": "string", "enum": ["true", "false"]}]},
    "files": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}, "description": "File names and their content."},
}, ["files"]))
tool("list_notifications", "List notifications, newest first.", obj({"all": {"type": "boolean", "default": False}, "participating": {"type": "boolean", "default": False}, "since": SINCE, "before": {"type": "string", "format": "date-time"}, "page": PAGE, "per_page": {**PER_PAGE, "default": 50}}))
tool("mark_notifications_read", "Mark notifications as read.", obj({"last_read_at": {"type": "string", "format": "date-time"}, "read": {"type": "boolean"}}))

# Discussions: recursive replies through definitions
tool("get_discussion", "Get a discussion with its comments and their replies.", obj(repo_props(discussion_number={"type": "integer"}), ["owner", "repo", "discussion_number"]),
     {"type": "object", "definitions": {"comment": {"type": "object", "properties": {"id": {"type": "string"}, "author": {"type": ["string", "null"]}, "body": {"type": "string"}, "is_answer": {"type": "boolean"}, "replies": {"type": "array", "items": {"$ref": "#/definitions/comment"}}}, "required": ["id", "body"]}},
      "properties": {"number": {"type": "integer"}, "title": {"type": "string"}, "category": {"type": "string"}, "comments": {"type": "array", "items": {"$ref": "#/definitions/comment"}}}, "required": ["number", "title", "comments"]})
tool("create_discussion", "Start a discussion in a category.", obj(repo_props(category={"type": "string"}, title={"type": "string"}, body={"type": "string"}), ["owner", "repo", "category", "title", "body"]))

# Projects: field values as a union
tool("update_project_item", "Set a field of a project item.", obj({
    "project_id": {"type": "string"},
    "item_id": {"type": "string"},
    "field_id": {"type": "string"},
    "value": {"anyOf": [
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False},
        {"type": "object", "properties": {"number": {"type": "number"}}, "required": ["number"], "additionalProperties": False},
        {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}, "required": ["date"], "additionalProperties": False},
        {"type": "object", "properties": {"single_select_option_id": {"type": "string"}}, "required": ["single_select_option_id"], "additionalProperties": False},
        {"type": "null", "description": "Clears the field."},
    ]},
}, ["project_id", "item_id", "field_id", "value"]))

json.dump(tools, open("github.json", "w"), indent=1)
print(len(tools), "github tools")

# ---------------------------------------------------------------------------
# Payments
AMOUNT = {"type": "integer", "minimum": 1, "description": "Amount in the currency's smallest unit (cents for USD; 100 = $1.00)."}
CURRENCY = {"type": "string", "enum": ["usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "sek"], "description": "Three-letter ISO currency code, in lowercase."}
METADATA = {"type": "object", "maxProperties": 50, "additionalProperties": {"type": "string", "maxLength": 500}, "description": "Your own key-value pairs, kept with the object."}
ADDRESS = {"type": "object", "properties": {"line1": {"type": "string"}, "line2": {"type": ["string", "null"]}, "city": {"type": "string"}, "state": {"type": "string"}, "postal_code": {"type": "string"}, "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2."}}, "required": ["line1", "country"]}
DEFS = {
    "customer": {"type": "object", "description": "A customer.", "properties": {
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "phone": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "shipping": {"type": "object", "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}}, "required": ["name", "address"]},
        "tax_ids": {"type": "array", "items": {"type": "object", "properties": {"type": {"type": "string", "enum": ["eu_vat", "gb_vat", "us_ein", "ch_vat"]}, "value": {"type": "string"}}, "required": ["type", "value"]}},
        "metadata": METADATA,
    }},
    "address": ADDRESS,
    "payment_method": {"description": "How the customer pays.", "oneOf": [
        {"type": "object", "title": "Card", "properties": {"type": {"const": "card"}, "card": {"type": "object", "properties": {"number": {"type": "string", "pattern": "^[0-9]{12,19}$"}, "exp_month": {"type": "integer", "minimum": 1, "maximum": 12}, "exp_year": {"type": "integer"}, "cvc": {"type": "string"}}, "required": ["number", "exp_month", "exp_year"]}}, "required": ["type", "card"]},
        {"type": "object", "title": "SepaDebit", "properties": {"type": {"const": "sepa_debit"}, "sepa_debit": {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]}, "mandate": {"type": "object", "properties": {"accepted_at": {"type": "string", "format": "date-time"}, "ip_address": {"type": "string", "format": "ipv4"}}}}, "required": ["type", "sepa_debit"]},
        {"type": "object", "title": "BankAccount", "properties": {"type": {"const": "us_bank_account"}, "us_bank_account": {"type": "object", "properties": {"routing_number": {"type": "string"}, "account_number": {"type": "string"}, "account_holder_type": {"type": "string", "enum": ["individual", "company"]}}, "required": ["routing_number", "account_number"]}}, "required": ["type", "us_bank_account"]},
        {"type": "object", "title": "Wallet", "properties": {"type": {"const": "wallet"}, "wallet": {"type": "string", "enum": ["apple_pay", "google_pay", "paypal"]}, "token": {"type": "string"}}, "required": ["type", "wallet", "token"]},
    ]},
    "money": {"type": "object", "properties": {"amount": AMOUNT, "currency": CURRENCY}, "required": ["amount", "currency"]},
    "line_item": {"type": "object", "properties": {"description": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1, "default": 1}, "unit_amount": {"$ref": "#/$defs/money"}, "tax_rates": {"type": "array", "items": {"type": "string"}}, "discounts": {"type": "array", "items": {"oneOf": [{"type": "object", "properties": {"coupon": {"type": "string"}}, "required": ["coupon"]}, {"type": "object", "properties": {"percent_off": {"type": "number", "exclusiveMinimum": 0, "maximum": 100}}, "required": ["percent_off"]}]}}}, "required": ["unit_amount"]},
}
PAYMENT_OUT = {"type": "object", "properties": {
    "id": {"type": "string", "pattern": "^pi_"},
    "amount": {"type": "integer"},
    "currency": CURRENCY,
    "status": {"type": "string", "enum": ["requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture", "canceled", "succeeded"]},
    "next_action": {"type": ["object", "null"], "properties": {"type": {"type": "string", "enum": ["redirect_to_url", "use_sdk"]}, "redirect_to_url": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}, "return_url": {"type": "string"}}}}},
    "last_payment_error": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"code": {"type": "string"}, "decline_code": {"type": "string"}, "message": {"type": "string"}}}]},
    "created": {"type": "integer", "description": "Unix time in seconds."},
}, "required": ["id", "amount", "currency", "status"]}


def ptool(name, description, props, required=(), output=None, defs=True):
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    if defs:
        schema["$defs"] = DEFS
    t = {"name": "payments." + name, "description": description, "inputSchema": schema}
    if output is not None:
        t["outputSchema"] = output
    return t


LIST = {"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}, "starting_after": {"type": "string", "description": "A cursor: the ID of the last object of the previous page."}, "ending_before": {"type": "string"}}
payments = [
    ptool("payment_intents.create", "Create a payment intent: the amount to collect from a customer, and how.", {
        "amount": AMOUNT,
        "currency": CURRENCY,
        "customer": {"oneOf": [{"type": "string", "description": "An existing customer's ID (cus_...)."}, {"$ref": "#/$defs/customer"}]},
        "payment_method": {"$ref": "#/$defs/payment_method"},
        "capture_method": {"type": "string", "enum": ["automatic", "automatic_async", "manual"], "default": "automatic"},
        "confirm": {"type": "boolean", "default": False},
        "description": {"type": "string", "maxLength": 1000},
        "receipt_email": {"type": "string", "format": "email"},
        "statement_descriptor": {"type": "string", "maxLength": 22},
        "application_fee_amount": {"type": "integer", "minimum": 0},
        "transfer_data": {"type": "object", "properties": {"destination": {"type": "string"}, "amount": AMOUNT}, "required": ["destination"]},
        "metadata": METADATA,
        "idempotency_key": {"type": "string", "format": "uuid", "description": "Retries with the same key create one payment only."},
    }, ["amount", "currency"], PAYMENT_OUT),
    ptool("payment_intents.retrieve", "Retrieve a payment intent.", {"id": {"type": "string"}}, ["id"], PAYMENT_OUT, defs=False),
    ptool("payment_intents.confirm", "Confirm a payment intent, optionally with a new payment method.", {"id": {"type": "string"}, "payment_method": {"$ref": "#/$defs/payment_method"}, "return_url": {"type": "string", "format": "uri"}, "off_session": {"type": "boolean"}}, ["id"], PAYMENT_OUT),
    ptool("payment_intents.capture", "Capture a payment intent created with capture_method manual.", {"id": {"type": "string"}, "amount_to_capture": {**AMOUNT, "description": "Less than the authorized amount releases the rest."}}, ["id"], PAYMENT_OUT, defs=False),
    ptool("payment_intents.cancel", "Cancel a payment intent.", {"id": {"type": "string"}, "cancellation_reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer", "abandoned"]}}, ["id"], PAYMENT_OUT, defs=False),
    ptool("payment_intents.list", "List payment intents, newest first.", {"customer": {"type": "string"}, "created": {"anyOf": [{"type": "integer"}, {"type": "object", "properties": {"gt": {"type": "integer"}, "gte": {"type": "integer"}, "lt": {"type": "integer"}, "lte": {"type": "integer"}}}]}, **LIST}, (), {"type": "object", "properties": {"data": {"type": "array", "items": PAYMENT_OUT}, "has_more": {"type": "boolean"}}, "required": ["data", "has_more"]}, defs=False),
    ptool("refunds.create", "Refund a payment, fully or in part.", {"payment_intent": {"type": "string"}, "amount": {**AMOUNT, "description": "Leave it out to refund everything not yet refunded."}, "reason": {"type": ["string", "null"], "enum": ["duplicate", "fraudulent", "requested_by_customer", None]}, "metadata": METADATA}, ["payment_intent"], {"type": "object", "properties": {"id": {"type": "string"}, "amount": {"type": "integer"}, "status": {"type": "string", "enum": ["pending", "requires_action", "succeeded", "failed", "canceled"]}}, "required": ["id", "amount", "status"]}, defs=False),
    ptool("refunds.list", "List refunds.", {"payment_intent": {"type": "string"}, **LIST}, defs=False),
    ptool("customers.create", "Create a customer.", {"customer": {"$ref": "#/$defs/customer"}, "payment_method": {"$ref": "#/$defs/payment_method"}, "invoice_settings": {"type": "object", "properties": {"default_payment_method": {"type": "string"}, "footer": {"type": "string"}, "custom_fields": {"type": ["array", "null"], "maxItems": 4, "items": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 40}, "value": {"type": "string", "maxLength": 140}}, "required": ["name", "value"]}}}}}, ["customer"]),
    ptool("customers.retrieve", "Retrieve a customer.", {"id": {"type": "string"}, "expand": {"type": "array", "items": {"type": "string", "enum": ["default_source", "invoice_settings.default_payment_method", "subscriptions", "tax_ids"]}}}, ["id"], defs=False),
    ptool("customers.update", "Update a customer; fields left out are unchanged, null clears one.", {"id": {"type": "string"}, "name": {"type": ["string", "null"]}, "email": {"type": ["string", "null"], "format": "email"}, "address": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]}, "metadata": METADATA, "balance": {"type": "integer", "description": "Credit (negative) or debt (positive), in the smallest currency unit."}}, ["id"]),
    ptool("customers.delete", "Delete a customer and cancel their subscriptions.", {"id": {"type": "string"}}, ["id"], {"type": "object", "properties": {"id": {"type": "string"}, "deleted": {"const": True}}, "required": ["id", "deleted"]}, defs=False),
    ptool("customers.search", "Search customers with a query such as \"email:'a@b.c'\".", {"query": {"type": "string"}, "limit": {"type": "integer", "default": 10}, "page": {"type": "string"}}, ["query"], defs=False),
    ptool("subscriptions.create", "Subscribe a customer to prices.", {
        "customer": {"type": "string"},
        "items": {"type": "array", "minItems": 1, "maxItems": 20, "items": {"type": "object", "properties": {"price": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}, "price_data": {"type": "object", "properties": {"currency": CURRENCY, "product": {"type": "string"}, "unit_amount": AMOUNT, "recurring": {"type": "object", "properties": {"interval": {"type": "string", "enum": ["day", "week", "month", "year"]}, "interval_count": {"type": "integer", "default": 1}}, "required": ["interval"]}}, "required": ["currency", "product", "recurring"]}}}},
        "trial_period_days": {"type": "integer", "minimum": 0, "maximum": 730},
        "collection_method": {"type": "string", "enum": ["charge_automatically", "send_invoice"], "default": "charge_automatically"},
        "days_until_due": {"type": "integer"},
        "cancel_at_period_end": {"type": "boolean", "default": False},
        "proration_behavior": {"type": "string", "enum": ["create_prorations", "none", "always_invoice"]},
        "metadata": METADATA,
    }, ["customer", "items"], defs=False),
    ptool("subscriptions.cancel", "Cancel a subscription now, or at the end of its period.", {"id": {"type": "string"}, "at_period_end": {"type": "boolean", "default": False}, "cancellation_details": {"type": "object", "properties": {"comment": {"type": ["string", "null"]}, "feedback": {"type": "string", "enum": ["customer_service", "low_quality", "missing_features", "other", "switched_service", "too_complex", "too_expensive", "unused"]}}}}, ["id"], defs=False),
    ptool("invoices.create", "Create a draft invoice with line items.", {"customer": {"type": "string"}, "currency": CURRENCY, "lines": {"type": "array", "items": {"$ref": "#/$defs/line_item"}}, "due_date": {"type": "integer"}, "auto_advance": {"type": "boolean"}, "footer": {"type": "string"}, "metadata": METADATA}, ["customer", "lines"]),
    ptool("invoices.finalize", "Finalize a draft invoice so it can be paid.", {"id": {"type": "string"}, "auto_advance": {"type": "boolean"}}, ["id"], defs=False),
    ptool("invoices.pay", "Pay an invoice now, off-session.", {"id": {"type": "string"}, "payment_method": {"type": "string"}, "paid_out_of_band": {"type": "boolean", "default": False}}, ["id"], defs=False),
    ptool("balance.retrieve", "The account's balance per currency, available and pending.", {}, (), {"type": "object", "properties": {"available": {"type": "array", "items": {"$ref": "#/$defs/money"}}, "pending": {"type": "array", "items": {"$ref": "#/$defs/money"}}}, "required": ["available", "pending"], "$defs": {"money": DEFS["money"]}}, defs=False),
    ptool("payouts.create", "Send funds to the account's bank account or card.", {"amount": AMOUNT, "currency": CURRENCY, "method": {"type": "string", "enum": ["standard", "instant"], "default": "standard"}, "destination": {"type": "string"}, "statement_descriptor": {"type": "string", "maxLength": 22}}, ["amount", "currency"], defs=False),
    ptool("webhook_endpoints.create", "Receive events at a URL.", {"url": {"type": "string", "format": "uri"}, "enabled_events": {"type": "array", "items": {"type": "string", "examples": ["payment_intent.succeeded", "*"]}}, "api_version": {"type": "string"}, "description": {"type": ["string", "null"]}}, ["url", "enabled_events"], defs=False),
    ptool("disputes.update", "Submit evidence for a dispute.", {"id": {"type": "string"}, "evidence": {"type": "object", "additionalProperties": False, "properties": {"customer_email_address": {"type": "string"}, "product_description": {"type": "string"}, "receipt": {"type": "string", "description": "ID of an uploaded file."}, "shipping_tracking_number": {"type": "string"}, "uncategorized_text": {"type": "string", "maxLength": 20000}}}, "submit": {"type": "boolean", "default": True}}, ["id"], defs=False),
]
json.dump(payments, open("payments.json", "w"), indent=1)
print(len(payments), "payments tools")
