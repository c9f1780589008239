from typing import Any, Literal, NotRequired, TypedDict

class GithubCreateIssueInputLabelsItemLabelSpec(TypedDict):
    name: str
    color: NotRequired[str]
    """Hex color without the leading #."""
    description: NotRequired[str | None]

class GithubCreateIssueOutputUser(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubCreateIssueOutputLabelsItem(TypedDict):
    name: str
    color: NotRequired[str]

class GithubCreateIssueOutputAssigneesItem(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubCreateIssueOutput(TypedDict):
    number: int
    title: str
    state: Literal["open", "closed"]
    state_reason: NotRequired[Literal["completed", "not_planned", "reopened"] | None]
    html_url: str
    """Format: uri."""
    user: NotRequired[GithubCreateIssueOutputUser]
    labels: NotRequired[list[GithubCreateIssueOutputLabelsItem]]
    assignees: NotRequired[list[GithubCreateIssueOutputAssigneesItem]]
    body: NotRequired[str | None]
    created_at: NotRequired[str]
    """Format: date-time."""

class GithubGetIssueOutputUser(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubGetIssueOutputLabelsItem(TypedDict):
    name: str
    color: NotRequired[str]

class GithubGetIssueOutputAssigneesItem(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubGetIssueOutput(TypedDict):
    number: int
    title: str
    state: Literal["open", "closed"]
    state_reason: NotRequired[Literal["completed", "not_planned", "reopened"] | None]
    html_url: str
    """Format: uri."""
    user: NotRequired[GithubGetIssueOutputUser]
    labels: NotRequired[list[GithubGetIssueOutputLabelsItem]]
    assignees: NotRequired[list[GithubGetIssueOutputAssigneesItem]]
    body: NotRequired[str | None]
    created_at: NotRequired[str]
    """Format: date-time."""

class GithubUpdateIssueInputLabelsItemLabelSpec(TypedDict):
    name: str
    color: NotRequired[str]
    """Hex color without the leading #."""
    description: NotRequired[str | None]

class GithubUpdateIssueOutputUser(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubUpdateIssueOutputLabelsItem(TypedDict):
    name: str
    color: NotRequired[str]

class GithubUpdateIssueOutputAssigneesItem(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubUpdateIssueOutput(TypedDict):
    number: int
    title: str
    state: Literal["open", "closed"]
    state_reason: NotRequired[Literal["completed", "not_planned", "reopened"] | None]
    html_url: str
    """Format: uri."""
    user: NotRequired[GithubUpdateIssueOutputUser]
    labels: NotRequired[list[GithubUpdateIssueOutputLabelsItem]]
    assignees: NotRequired[list[GithubUpdateIssueOutputAssigneesItem]]
    body: NotRequired[str | None]
    created_at: NotRequired[str]
    """Format: date-time."""

class GithubListIssuesOutputItemsItemUser(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubListIssuesOutputItemsItemLabelsItem(TypedDict):
    name: str
    color: NotRequired[str]

class GithubListIssuesOutputItemsItemAssigneesItem(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubListIssuesOutputItemsItem(TypedDict):
    number: int
    title: str
    state: Literal["open", "closed"]
    state_reason: NotRequired[Literal["completed", "not_planned", "reopened"] | None]
    html_url: str
    """Format: uri."""
    user: NotRequired[GithubListIssuesOutputItemsItemUser]
    labels: NotRequired[list[GithubListIssuesOutputItemsItemLabelsItem]]
    assignees: NotRequired[list[GithubListIssuesOutputItemsItemAssigneesItem]]
    body: NotRequired[str | None]
    created_at: NotRequired[str]
    """Format: date-time."""

class GithubListIssuesOutput(TypedDict):
    items: list[GithubListIssuesOutputItemsItem]
    total_count: NotRequired[int]

class GithubAddLabelsInputLabelsItemLabelSpec(TypedDict):
    name: str
    color: NotRequired[str]
    """Hex color without the leading #."""
    description: NotRequired[str | None]

class GithubCreateReactionInputSubjectIssue(TypedDict):
    kind: Literal["issue"]
    issue_number: int

class GithubCreateReactionInputSubjectIssueComment(TypedDict):
    kind: Literal["issue_comment"]
    comment_id: int

class GithubCreateReactionInputSubjectReviewComment(TypedDict):
    kind: Literal["review_comment"]
    comment_id: int

class GithubCreatePullRequestOutputHead(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubCreatePullRequestOutputBase(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubCreatePullRequestOutputRequestedReviewersItemOption1(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubCreatePullRequestOutputRequestedReviewersItemOption2(TypedDict):
    slug: str
    name: NotRequired[str]

class GithubCreatePullRequestOutput(TypedDict):
    number: int
    state: Literal["open", "closed"]
    draft: NotRequired[bool]
    merged: NotRequired[bool]
    mergeable: NotRequired[bool | None]
    head: GithubCreatePullRequestOutputHead
    """A branch of a repository."""
    base: GithubCreatePullRequestOutputBase
    """A branch of a repository."""
    requested_reviewers: NotRequired[list[GithubCreatePullRequestOutputRequestedReviewersItemOption1 | GithubCreatePullRequestOutputRequestedReviewersItemOption2]]

class GithubGetPullRequestOutputHead(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubGetPullRequestOutputBase(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubGetPullRequestOutputRequestedReviewersItemOption1(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubGetPullRequestOutputRequestedReviewersItemOption2(TypedDict):
    slug: str
    name: NotRequired[str]

class GithubGetPullRequestOutput(TypedDict):
    number: int
    state: Literal["open", "closed"]
    draft: NotRequired[bool]
    merged: NotRequired[bool]
    mergeable: NotRequired[bool | None]
    head: GithubGetPullRequestOutputHead
    """A branch of a repository."""
    base: GithubGetPullRequestOutputBase
    """A branch of a repository."""
    requested_reviewers: NotRequired[list[GithubGetPullRequestOutputRequestedReviewersItemOption1 | GithubGetPullRequestOutputRequestedReviewersItemOption2]]

class GithubUpdatePullRequestOutputHead(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubUpdatePullRequestOutputBase(TypedDict):
    ref: str
    sha: str
    """A full commit SHA."""
    label: NotRequired[str]

class GithubUpdatePullRequestOutputRequestedReviewersItemOption1(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubUpdatePullRequestOutputRequestedReviewersItemOption2(TypedDict):
    slug: str
    name: NotRequired[str]

class GithubUpdatePullRequestOutput(TypedDict):
    number: int
    state: Literal["open", "closed"]
    draft: NotRequired[bool]
    merged: NotRequired[bool]
    mergeable: NotRequired[bool | None]
    head: GithubUpdatePullRequestOutputHead
    """A branch of a repository."""
    base: GithubUpdatePullRequestOutputBase
    """A branch of a repository."""
    requested_reviewers: NotRequired[list[GithubUpdatePullRequestOutputRequestedReviewersItemOption1 | GithubUpdatePullRequestOutputRequestedReviewersItemOption2]]

class GithubMergePullRequestOutput(TypedDict):
    sha: NotRequired[str]
    merged: bool
    message: str

class GithubListPullRequestFilesOutputItem(TypedDict):
    filename: str
    status: Literal["added", "removed", "modified", "renamed", "copied", "changed", "unchanged"]
    additions: NotRequired[int]
    deletions: NotRequired[int]
    patch: NotRequired[str]

class GithubCreateReviewInputCommentsItem(TypedDict):
    path: str
    """The file's path relative to the repository root."""
    position: NotRequired[int]
    """Deprecated."""
    body: str
    line: NotRequired[int]
    side: NotRequired[Literal["LEFT", "RIGHT"]]
    start_line: NotRequired[int]
    start_side: NotRequired[Literal["LEFT", "RIGHT", "side"]]

class GithubCreateRepositoryInputSecurityAndAnalysisAdvancedSecurity(TypedDict):
    status: NotRequired[Literal["enabled", "disabled"]]

class GithubCreateRepositoryInputSecurityAndAnalysisSecretScanning(TypedDict):
    status: NotRequired[Literal["enabled", "disabled"]]

class GithubCreateRepositoryInputSecurityAndAnalysis(TypedDict):
    advanced_security: NotRequired[GithubCreateRepositoryInputSecurityAndAnalysisAdvancedSecurity]
    secret_scanning: NotRequired[GithubCreateRepositoryInputSecurityAndAnalysisSecretScanning]

class GithubUpdateRepositoryInputSecurityAndAnalysisAdvancedSecurity(TypedDict):
    status: NotRequired[Literal["enabled", "disabled"]]

class GithubUpdateRepositoryInputSecurityAndAnalysisSecretScanning(TypedDict):
    status: NotRequired[Literal["enabled", "disabled"]]

class GithubUpdateRepositoryInputSecurityAndAnalysis(TypedDict):
    advanced_security: NotRequired[GithubUpdateRepositoryInputSecurityAndAnalysisAdvancedSecurity]
    secret_scanning: NotRequired[GithubUpdateRepositoryInputSecurityAndAnalysisSecretScanning]

class GithubListTopicsOutput(TypedDict):
    names: list[str]

class GithubUpdateBranchProtectionInputRequiredStatusChecksChecksItem(TypedDict):
    context: str
    app_id: NotRequired[int]

class GithubUpdateBranchProtectionInputRequiredStatusChecks(TypedDict):
    strict: bool
    checks: list[GithubUpdateBranchProtectionInputRequiredStatusChecksChecksItem]

class GithubUpdateBranchProtectionInputRequiredPullRequestReviews(TypedDict):
    dismiss_stale_reviews: NotRequired[bool]
    require_code_owner_reviews: NotRequired[bool]
    required_approving_review_count: NotRequired[int]

class GithubUpdateBranchProtectionInputRestrictions(TypedDict):
    users: list[str]
    teams: list[str]
    apps: NotRequired[list[str]]

class GithubGetFileContentsOutputFile(TypedDict):
    type: Literal["file"]
    encoding: NotRequired[Literal["base64"]]
    size: NotRequired[int]
    name: NotRequired[str]
    path: NotRequired[str]
    content: str
    sha: str

class GithubGetFileContentsOutputDirectoryItem(TypedDict):
    type: Literal["file", "dir", "symlink", "submodule"]
    name: str
    path: str

class GithubCreateOrUpdateFileInputCommitter(TypedDict):
    name: str
    email: str
    """Format: email."""
    date: NotRequired[str]
    """Format: date-time."""

class GithubPushFilesInputFilesItem(TypedDict):
    path: str
    content: str

class GithubCreateTreeInputTreeItemOption2Option1(TypedDict):
    path: str
    mode: Literal["100644", "100755", "040000", "160000", "120000"]
    type: Literal["blob", "tree", "commit"]
    sha: str | None

class GithubCreateTreeInputTreeItemOption2Option2(TypedDict):
    path: str
    mode: Literal["100644", "100755", "040000", "160000", "120000"]
    type: Literal["blob", "tree", "commit"]
    content: str

class GithubGetTreeTreeTreeItem(TypedDict):
    path: str
    type: str
    sha: str
    subtree: NotRequired[GithubGetTreeTree]

class GithubGetTreeTree(TypedDict):
    sha: str
    truncated: NotRequired[bool]
    tree: list[GithubGetTreeTreeTreeItem]

class GithubCreateTagInputTagger(TypedDict):
    name: NotRequired[str]
    email: NotRequired[str]
    date: NotRequired[str]
    """Format: date-time."""

GithubSearchIssuesInputQualifiersCreatedOption2 = TypedDict("GithubSearchIssuesInputQualifiersCreatedOption2", {
    "from": NotRequired[str],  # Format: date.
    "to": NotRequired[str],  # Format: date.
})

GithubSearchIssuesInputQualifiers = TypedDict("GithubSearchIssuesInputQualifiers", {
    "is": NotRequired[list[Literal["issue", "pr", "open", "closed", "merged", "draft", "locked"]]],
    "repo": NotRequired[str],
    "author": NotRequired[str],
    "label": NotRequired[list[str]],
    "created": NotRequired[str | GithubSearchIssuesInputQualifiersCreatedOption2],
    "in": NotRequired[Literal["title", "body", "comments"]],
})

class GithubSearchIssuesOutputItemsItemUser(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubSearchIssuesOutputItemsItemLabelsItem(TypedDict):
    name: str
    color: NotRequired[str]

class GithubSearchIssuesOutputItemsItemAssigneesItem(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubSearchIssuesOutputItemsItem(TypedDict):
    number: int
    title: str
    state: Literal["open", "closed"]
    state_reason: NotRequired[Literal["completed", "not_planned", "reopened"] | None]
    html_url: str
    """Format: uri."""
    user: NotRequired[GithubSearchIssuesOutputItemsItemUser]
    labels: NotRequired[list[GithubSearchIssuesOutputItemsItemLabelsItem]]
    assignees: NotRequired[list[GithubSearchIssuesOutputItemsItemAssigneesItem]]
    body: NotRequired[str | None]
    created_at: NotRequired[str]
    """Format: date-time."""

class GithubSearchIssuesOutput(TypedDict):
    total_count: int
    incomplete_results: NotRequired[bool]
    items: list[GithubSearchIssuesOutputItemsItem]

class GithubGetMeOutput(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubGetUserOutput(TypedDict):
    login: str
    id: int
    type: NotRequired[Literal["User", "Organization", "Bot"]]
    site_admin: NotRequired[bool]

class GithubGetJobLogsOutput(TypedDict):
    logs: str
    truncated: NotRequired[bool]

class GithubCreateCheckRunInputOutputAnnotationsItem(TypedDict):
    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    message: str
    title: NotRequired[str]

class GithubCreateCheckRunInputOutputImagesItem(TypedDict):
    alt: str
    image_url: str
    caption: NotRequired[str]

class GithubCreateCheckRunInputOutput(TypedDict):
    title: str
    summary: str
    text: NotRequired[str]
    annotations: NotRequired[list[GithubCreateCheckRunInputOutputAnnotationsItem]]
    images: NotRequired[list[GithubCreateCheckRunInputOutputImagesItem]]

class GithubCreateCheckRunInputActionsItem(TypedDict):
    label: str
    description: str
    identifier: str

class GithubGetCombinedStatusOutputStatusesItem(TypedDict):
    context: str
    state: Literal["error", "failure", "pending", "success"]
    target_url: NotRequired[str | None]

class GithubGetCombinedStatusOutput(TypedDict):
    state: Literal["failure", "pending", "success"]
    total_count: NotRequired[int]
    statuses: list[GithubGetCombinedStatusOutputStatusesItem]

class GithubCreateWebhookInputConfig(TypedDict):
    url: str
    """Format: uri."""
    content_type: NotRequired[Literal["json", "form"]]
    """Default: "form"."""
    secret: NotRequired[str]
    insecure_ssl: NotRequired[Literal["0", "1", 0, 1]]

class GithubUpdateWebhookInputConfig(TypedDict):
    url: str
    """Format: uri."""
    content_type: NotRequired[Literal["json", "form"]]
    """Default: "form"."""
    secret: NotRequired[str]
    insecure_ssl: NotRequired[Literal["0", "1", 0, 1]]

class GithubCreateGistInputFilesValue(TypedDict):
    content: str

class GithubGetDiscussionComment(TypedDict):
    id: str
    author: NotRequired[str | None]
    body: str
    is_answer: NotRequired[bool]
    replies: NotRequired[list[GithubGetDiscussionComment]]

class GithubGetDiscussionOutput(TypedDict):
    number: int
    title: str
    category: NotRequired[str]
    comments: list[GithubGetDiscussionComment]

class GithubUpdateProjectItemInputValueOption1(TypedDict):
    text: str

class GithubUpdateProjectItemInputValueOption2(TypedDict):
    number: float

class GithubUpdateProjectItemInputValueOption3(TypedDict):
    date: str
    """Format: date."""

class GithubUpdateProjectItemInputValueOption4(TypedDict):
    single_select_option_id: str

class github:
    @staticmethod
    async def create_issue(
        *,
        owner: str,
        repo: str,
        title: str,
        body: str = ...,
        assignees: list[str] = ...,
        milestone: int | str | None = ...,
        labels: list[str | GithubCreateIssueInputLabelsItemLabelSpec] = ...,
        type: str = ...,
    ) -> GithubCreateIssueOutput:
        """Create a new issue in a repository.

        The authenticated user needs push access to set labels, assignees or a milestone; otherwise they are silently dropped.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            title: The title of the issue.
            body: The contents of the issue, in GitHub Markdown.
            assignees: Logins of users to assign.
            milestone: The number of the milestone, or its title; null removes it.
            labels: Labels: names, or new labels with a color.
            type: The name of the issue type (organizations only).
        """

    @staticmethod
    async def get_issue(*, owner: str, repo: str, issue_number: int) -> GithubGetIssueOutput:
        """Get an issue by its number.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_issue(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        title: str | None = ...,
        body: str | None = ...,
        state: Literal["open", "closed"] = ...,
        state_reason: Literal["completed", "not_planned", "reopened"] | None = ...,
        labels: list[str | GithubUpdateIssueInputLabelsItemLabelSpec] = ...,
        assignees: list[str] = ...,
    ) -> GithubUpdateIssueOutput:
        """Update an issue: title, body, state, labels, assignees or milestone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_issues(
        *,
        owner: str,
        repo: str,
        milestone: str = ...,
        state: Literal["open", "closed", "all"] = "open",
        assignee: str = ...,
        creator: str = ...,
        mentioned: str = ...,
        labels: str = ...,
        sort: Literal["created", "updated", "comments"] = "created",
        direction: Literal["asc", "desc"] = "desc",
        since: str = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> GithubListIssuesOutput:
        """List issues of a repository. Pull requests are issues too; filter them out with the pull_request key of each result.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            milestone: A milestone number, or "*" for any, or "none".
            state: Filter by state. Default: "open".
            labels: Comma-separated label names, e.g. "bug,ui,@high".
            sort: Default: "created".
            direction: The direction of the sort. Default: "desc".
            since: Only results updated at or after this time (ISO 8601). Format: date-time.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def lock_issue(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        lock_reason: Literal["off-topic", "too heated", "resolved", "spam"] = ...,
    ) -> Any:
        """Lock an issue's conversation.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def unlock_issue(*, owner: str, repo: str, issue_number: int) -> Any:
        """Unlock an issue's conversation.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def add_assignees(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        assignees: list[str],
    ) -> Any:
        """Add up to 10 assignees to an issue.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def remove_assignees(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        assignees: list[str],
    ) -> Any:
        """Remove assignees from an issue.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def add_labels(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        labels: list[str | GithubAddLabelsInputLabelsItemLabelSpec],
    ) -> Any:
        """Add labels to an issue.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def remove_label(*, owner: str, repo: str, issue_number: int, name: str) -> Any:
        """Remove one label from an issue.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_issue_events(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the events of an issue (labeled, assigned, closed, ...).

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_issue_timeline(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Get the timeline of an issue: comments, events and cross-references in order.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_issue_comments(
        *,
        owner: str,
        repo: str,
        page: int = 1,
        per_page: int = 30,
        since: str = ...,
        sort: Literal["created", "updated"] = ...,
        direction: Literal["asc", "desc"] = "desc",
    ) -> Any:
        """List the issue comments of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
            since: Only results updated at or after this time (ISO 8601). Format: date-time.
            direction: The direction of the sort. Default: "desc".
        """

    @staticmethod
    async def get_issue_comment(*, owner: str, repo: str, comment_id: int) -> Any:
        """Get one issue comment of a repository by its comment_id.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            comment_id: Format: int64.
        """

    @staticmethod
    async def create_issue_comment(*, owner: str, repo: str, issue_number: int, body: str) -> Any:
        """Create a issue comment in a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            body: The comment, in GitHub Markdown.
        """

    @staticmethod
    async def update_issue_comment(
        *,
        owner: str,
        repo: str,
        comment_id: int,
        issue_number: int = ...,
        body: str = ...,
    ) -> Any:
        """Update a issue comment; only the fields given change.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            body: The comment, in GitHub Markdown.
            comment_id: Format: int64.
        """

    @staticmethod
    async def delete_issue_comment(*, owner: str, repo: str, comment_id: int) -> Any:
        """Delete a issue comment. This cannot be undone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            comment_id: Format: int64.
        """

    @staticmethod
    async def create_reaction(
        *,
        owner: str,
        repo: str,
        subject: GithubCreateReactionInputSubjectIssue | GithubCreateReactionInputSubjectIssueComment | GithubCreateReactionInputSubjectReviewComment,
        content: Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"],
    ) -> Any:
        """React to an issue, a pull request or a comment.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            content: The reaction.
        """

    @staticmethod
    async def list_reactions(
        *,
        owner: str,
        repo: str,
        issue_number: int,
        content: Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"] = ...,
    ) -> Any:
        """List the reactions to an issue.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            content: The reaction.
        """

    @staticmethod
    async def delete_reaction(*, owner: str, repo: str, issue_number: int, reaction_id: int) -> Any:
        """Delete a reaction.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_labels(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the labels of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_label(*, owner: str, repo: str, name: str) -> Any:
        """Get one label of a repository by its name.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_label(
        *,
        owner: str,
        repo: str,
        name: str,
        color: str = ...,
        description: str = ...,
    ) -> Any:
        """Create a label in a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_label(
        *,
        owner: str,
        repo: str,
        name: str,
        color: str = ...,
        description: str = ...,
        new_name: str = ...,
    ) -> Any:
        """Update a label; only the fields given change.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def delete_label(*, owner: str, repo: str, name: str) -> Any:
        """Delete a label. This cannot be undone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_milestones(
        *,
        owner: str,
        repo: str,
        page: int = 1,
        per_page: int = 30,
        state: Literal["open", "closed", "all"] = "open",
        sort: Literal["due_on", "completeness"] = "due_on",
        direction: Literal["asc", "desc"] = "desc",
    ) -> Any:
        """List the milestones of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
            state: Filter by state. Default: "open".
            sort: Default: "due_on".
            direction: The direction of the sort. Default: "desc".
        """

    @staticmethod
    async def get_milestone(*, owner: str, repo: str, milestone_number: int) -> Any:
        """Get one milestone of a repository by its milestone_number.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_milestone(
        *,
        owner: str,
        repo: str,
        title: str,
        state: Literal["open", "closed"] = "open",
        description: str = ...,
        due_on: str = ...,
    ) -> Any:
        """Create a milestone in a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            state: Default: "open".
            due_on: Format: date-time.
        """

    @staticmethod
    async def update_milestone(
        *,
        owner: str,
        repo: str,
        milestone_number: int,
        title: str = ...,
        state: Literal["open", "closed"] = "open",
        description: str = ...,
        due_on: str = ...,
    ) -> Any:
        """Update a milestone; only the fields given change.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            state: Default: "open".
            due_on: Format: date-time.
        """

    @staticmethod
    async def delete_milestone(*, owner: str, repo: str, milestone_number: int) -> Any:
        """Delete a milestone. This cannot be undone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_pull_request(
        *,
        owner: str,
        repo: str,
        head: str,
        base: str,
        title: str = ...,
        head_repo: str = ...,
        body: str = ...,
        draft: bool = False,
        maintainer_can_modify: bool = True,
        issue: int = ...,
    ) -> GithubCreatePullRequestOutput:
        """Open a pull request from head into base.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            head: The branch with your changes; "user:branch" for a branch of a fork.
            base: The branch to merge into.
            draft: Default: false.
            maintainer_can_modify: Default: true.
            issue: Turn this issue into the pull request (instead of title and body). Deprecated.
        """

    @staticmethod
    async def get_pull_request(
        *,
        owner: str,
        repo: str,
        pull_number: int,
    ) -> GithubGetPullRequestOutput:
        """Get a pull request.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_pull_request(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        title: str = ...,
        body: str = ...,
        state: Literal["open", "closed"] = ...,
        base: str = ...,
        maintainer_can_modify: bool = ...,
    ) -> GithubUpdatePullRequestOutput:
        """Update a pull request.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_pull_requests(
        *,
        owner: str,
        repo: str,
        state: Literal["open", "closed", "all"] = "open",
        head: str = ...,
        base: str = ...,
        sort: Literal["created", "updated", "popularity", "long-running"] = "created",
        direction: Literal["asc", "desc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List pull requests.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            state: Filter by state. Default: "open".
            sort: Default: "created".
            direction: The direction of the sort. Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def merge_pull_request(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        commit_title: str = ...,
        commit_message: str = ...,
        sha: str = ...,
        merge_method: Literal["merge", "squash", "rebase"] = "merge",
    ) -> GithubMergePullRequestOutput:
        """Merge a pull request.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            sha: The SHA the head must match to allow the merge.
            merge_method: Default: "merge".
        """

    @staticmethod
    async def list_pull_request_files(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        page: int = 1,
        per_page: int = 30,
    ) -> list[GithubListPullRequestFilesOutputItem]:
        """List the files a pull request changes (at most 3000).

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_pull_request_commits(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the commits of a pull request.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def request_reviewers(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        reviewers: list[str] = ...,
        team_reviewers: list[str] = ...,
    ) -> Any:
        """Request reviews from users or teams.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_review(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        commit_id: str = ...,
        body: str = ...,
        event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"] = ...,
        comments: list[GithubCreateReviewInputCommentsItem] = ...,
    ) -> Any:
        """Create a review of a pull request, with comments on lines of the diff.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            commit_id: A full commit SHA.
            event: Leave it out to create a pending review.
        """

    @staticmethod
    async def list_reviews(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the reviews of a pull request.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def submit_review(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        review_id: int,
        event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"],
        body: str = ...,
    ) -> Any:
        """Submit a pending review.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def dismiss_review(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        review_id: int,
        message: str,
    ) -> Any:
        """Dismiss a review.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_pull_request_branch(
        *,
        owner: str,
        repo: str,
        pull_number: int,
        expected_head_sha: str = ...,
    ) -> Any:
        """Bring a pull request's branch up to date with its base.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            expected_head_sha: A full commit SHA.
        """

    @staticmethod
    async def create_repository(
        *,
        name: str,
        org: str = ...,
        description: str = ...,
        homepage: str = ...,
        private: bool = False,
        visibility: Literal["public", "private", "internal"] = ...,
        has_issues: bool = True,
        has_projects: bool = True,
        has_wiki: bool = True,
        allow_squash_merge: bool = ...,
        allow_merge_commit: bool = ...,
        allow_rebase_merge: bool = ...,
        delete_branch_on_merge: bool = False,
        security_and_analysis: GithubCreateRepositoryInputSecurityAndAnalysis | None = ...,
        auto_init: bool = False,
        gitignore_template: str = ...,
        license_template: str = ...,
    ) -> Any:
        """Create a repository for the authenticated user, or in an organization.

        Args:
            org: Create it in this organization instead.
            homepage: Format: uri.
            private: Default: false.
            has_issues: Default: true.
            has_projects: Default: true.
            has_wiki: Default: true.
            delete_branch_on_merge: Default: false.
            auto_init: Default: false.
        """

    @staticmethod
    async def get_repository(*, owner: str, repo: str) -> Any:
        """Get a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_repository(
        *,
        owner: str,
        repo: str,
        name: str = ...,
        description: str = ...,
        homepage: str = ...,
        private: bool = False,
        visibility: Literal["public", "private", "internal"] = ...,
        has_issues: bool = True,
        has_projects: bool = True,
        has_wiki: bool = True,
        allow_squash_merge: bool = ...,
        allow_merge_commit: bool = ...,
        allow_rebase_merge: bool = ...,
        delete_branch_on_merge: bool = False,
        security_and_analysis: GithubUpdateRepositoryInputSecurityAndAnalysis | None = ...,
        default_branch: str = ...,
        archived: bool = ...,
    ) -> Any:
        """Update a repository's settings.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            homepage: Format: uri.
            private: Default: false.
            has_issues: Default: true.
            has_projects: Default: true.
            has_wiki: Default: true.
            delete_branch_on_merge: Default: false.
        """

    @staticmethod
    async def delete_repository(*, owner: str, repo: str) -> Any:
        """Delete a repository. Needs the delete_repo scope.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_user_repositories(
        *,
        username: str,
        type: Literal["all", "owner", "member"] = "owner",
        sort: Literal["created", "updated", "pushed", "full_name"] = "full_name",
        direction: Literal["asc", "desc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the repositories of a user.

        Args:
            type: Default: "owner".
            sort: Default: "full_name".
            direction: The direction of the sort. Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_org_repositories(
        *,
        org: str,
        type: Literal["all", "public", "private", "forks", "sources", "member"] = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the repositories of an organization.

        Args:
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def fork_repository(
        *,
        owner: str,
        repo: str,
        organization: str = ...,
        name: str = ...,
        default_branch_only: bool = ...,
    ) -> Any:
        """Fork a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_forks(
        *,
        owner: str,
        repo: str,
        sort: Literal["newest", "oldest", "stargazers", "watchers"] = "newest",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the forks of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            sort: Default: "newest".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_languages(*, owner: str, repo: str) -> dict[str, int]:
        """The languages of a repository, with bytes of code each.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_topics(*, owner: str, repo: str) -> GithubListTopicsOutput:
        """The topics of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def replace_topics(*, owner: str, repo: str, names: list[str]) -> Any:
        """Replace all topics of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_contributors(
        *,
        owner: str,
        repo: str,
        anon: bool = False,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the contributors of a repository, most commits first.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            anon: Default: false.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def star_repository(*, owner: str, repo: str) -> Any:
        """Star a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def unstar_repository(*, owner: str, repo: str) -> Any:
        """Unstar a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_stargazers(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the users who starred a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def transfer_repository(
        *,
        owner: str,
        repo: str,
        new_owner: str,
        new_name: str = ...,
        team_ids: list[int] = ...,
    ) -> Any:
        """Transfer a repository to another user or organization.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_branches(
        *,
        owner: str,
        repo: str,
        protected: bool = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List branches.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_branch(*, owner: str, repo: str, branch: str) -> Any:
        """Get a branch.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_branch(*, owner: str, repo: str, branch: str, from_sha: str) -> Any:
        """Create a branch from a commit.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            from_sha: A full commit SHA.
        """

    @staticmethod
    async def rename_branch(*, owner: str, repo: str, branch: str, new_name: str) -> Any:
        """Rename a branch.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_branch_protection(
        *,
        owner: str,
        repo: str,
        branch: str,
        required_status_checks: GithubUpdateBranchProtectionInputRequiredStatusChecks | None,
        enforce_admins: bool | None,
        required_pull_request_reviews: GithubUpdateBranchProtectionInputRequiredPullRequestReviews | None,
        restrictions: GithubUpdateBranchProtectionInputRestrictions | None,
    ) -> Any:
        """Protect a branch: required checks, reviews and restrictions.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_commits(
        *,
        owner: str,
        repo: str,
        sha: str = ...,
        path: str = ...,
        author: str = ...,
        since: str = ...,
        until: str = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List commits, newest first.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            sha: A SHA or branch to start from.
            since: Only results updated at or after this time (ISO 8601). Format: date-time.
            until: Format: date-time.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_commit(*, owner: str, repo: str, ref: str) -> Any:
        """Get a commit with its diff stats.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def compare_commits(
        *,
        owner: str,
        repo: str,
        basehead: str,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Compare two commits: "base...head".

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_file_contents(
        *,
        owner: str,
        repo: str,
        path: str,
        ref: str = ...,
    ) -> GithubGetFileContentsOutputFile | list[GithubGetFileContentsOutputDirectoryItem]:
        """Get a file or a directory listing. Files come base64-encoded.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            ref: A branch, tag or SHA; the default branch when left out.
        """

    @staticmethod
    async def create_or_update_file(
        *,
        owner: str,
        repo: str,
        path: str,
        message: str,
        content: str,
        sha: str = ...,
        branch: str = ...,
        committer: GithubCreateOrUpdateFileInputCommitter = ...,
    ) -> Any:
        """Create or replace a file in one commit.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            message: The commit message.
            content: The new file content, base64-encoded.
            sha: The blob SHA of the file being replaced (required to update).
        """

    @staticmethod
    async def delete_file(
        *,
        owner: str,
        repo: str,
        path: str,
        message: str,
        sha: str,
        branch: str = ...,
    ) -> Any:
        """Delete a file in one commit.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def push_files(
        *,
        owner: str,
        repo: str,
        branch: str,
        message: str,
        files: list[GithubPushFilesInputFilesItem],
    ) -> Any:
        """Commit several files at once to a branch.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_tree(
        *,
        owner: str,
        repo: str,
        tree: list[GithubCreateTreeInputTreeItemOption2Option1 | GithubCreateTreeInputTreeItemOption2Option2],
        base_tree: str = ...,
    ) -> Any:
        """Create a git tree; each entry gives content or an existing object's SHA.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def get_tree(
        *,
        owner: str,
        repo: str,
        tree_sha: str,
        recursive: bool = ...,
    ) -> GithubGetTreeTree:
        """Get a git tree, optionally recursively.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_tag(
        *,
        owner: str,
        repo: str,
        tag: str,
        message: str,
        object: str,
        type: Literal["commit", "tree", "blob"],
        tagger: GithubCreateTagInputTagger = ...,
    ) -> Any:
        """Create an annotated tag object and its reference.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            object: A full commit SHA.
        """

    @staticmethod
    async def list_tags(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the tags of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_releases(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the releases of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_release(*, owner: str, repo: str, release_id: int) -> Any:
        """Get one release of a repository by its release_id.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_release(
        *,
        owner: str,
        repo: str,
        tag_name: str,
        target_commitish: str = ...,
        name: str = ...,
        body: str = ...,
        draft: bool = False,
        prerelease: bool = False,
        make_latest: Literal["true", "false", "legacy"] = "true",
        generate_release_notes: bool = False,
    ) -> Any:
        """Create a release in a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            draft: Default: false.
            prerelease: Default: false.
            make_latest: Default: "true".
            generate_release_notes: Default: false.
        """

    @staticmethod
    async def update_release(
        *,
        owner: str,
        repo: str,
        release_id: int,
        tag_name: str = ...,
        target_commitish: str = ...,
        name: str = ...,
        body: str = ...,
        draft: bool = False,
        prerelease: bool = False,
        make_latest: Literal["true", "false", "legacy"] = "true",
        generate_release_notes: bool = False,
    ) -> Any:
        """Update a release; only the fields given change.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            draft: Default: false.
            prerelease: Default: false.
            make_latest: Default: "true".
            generate_release_notes: Default: false.
        """

    @staticmethod
    async def delete_release(*, owner: str, repo: str, release_id: int) -> Any:
        """Delete a release. This cannot be undone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def get_latest_release(*, owner: str, repo: str) -> Any:
        """Get the latest published full release.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def search_repositories(
        *,
        q: str,
        sort: Literal["stars", "forks", "help-wanted-issues", "updated"] = ...,
        order: Literal["desc", "asc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Search repositories.

        Args:
            q: Search words and qualifiers, e.g. "tetris language:assembly".
            order: Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def search_code(
        *,
        q: str,
        sort: Literal["indexed"] = ...,
        order: Literal["desc", "asc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Search code in the default branches of repositories.

        Args:
            sort: Deprecated.
            order: Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def search_issues(
        *,
        q: str,
        qualifiers: GithubSearchIssuesInputQualifiers = ...,
        sort: Literal["comments", "reactions", "reactions-+1", "reactions--1", "reactions-smile", "interactions", "created", "updated"] = ...,
        order: Literal["desc", "asc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> GithubSearchIssuesOutput:
        """Search issues and pull requests.

        Args:
            qualifiers: Qualifiers added to q.
            order: Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def search_users(
        *,
        q: str,
        sort: Literal["followers", "repositories", "joined"] = ...,
        order: Literal["desc", "asc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Search users.

        Args:
            order: Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def search_commits(
        *,
        q: str,
        sort: Literal["author-date", "committer-date"] = ...,
        order: Literal["desc", "asc"] = "desc",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """Search commits.

        Args:
            order: Default: "desc".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_me() -> GithubGetMeOutput:
        """Get the authenticated user."""

    @staticmethod
    async def get_user(*, username: str) -> GithubGetUserOutput:
        """Get a user by login."""

    @staticmethod
    async def list_followers(*, username: str, page: int = 1, per_page: int = 30) -> Any:
        """List a user's followers.

        Args:
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_organization(*, org: str) -> Any:
        """Get an organization."""

    @staticmethod
    async def list_org_members(
        *,
        org: str,
        filter: Literal["2fa_disabled", "all"] = "all",
        role: Literal["all", "admin", "member"] = "all",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the members of an organization.

        Args:
            filter: Default: "all".
            role: Default: "all".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def list_teams(*, org: str, page: int = 1, per_page: int = 30) -> Any:
        """List the teams of an organization.

        Args:
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def create_team(
        *,
        org: str,
        name: str,
        description: str = ...,
        maintainers: list[str] = ...,
        privacy: Literal["secret", "closed"] = ...,
        permission: Literal["pull", "push"] = "pull",
        parent_team_id: int = ...,
    ) -> Any:
        """Create a team in an organization.

        Args:
            permission: Default: "pull". Deprecated.
        """

    @staticmethod
    async def add_team_member(
        *,
        org: str,
        team_slug: str,
        username: str,
        role: Literal["member", "maintainer"] = "member",
    ) -> Any:
        """Add or update a team membership.

        Args:
            role: Default: "member".
        """

    @staticmethod
    async def list_collaborators(
        *,
        owner: str,
        repo: str,
        affiliation: Literal["outside", "direct", "all"] = "all",
        permission: Literal["pull", "triage", "push", "maintain", "admin"] = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the collaborators of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            affiliation: Default: "all".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def add_collaborator(
        *,
        owner: str,
        repo: str,
        username: str,
        permission: str = "push",
    ) -> Any:
        """Invite a collaborator to a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            permission: Default: "push".
        """

    @staticmethod
    async def list_workflows(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the workflows of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def run_workflow(
        *,
        owner: str,
        repo: str,
        workflow_id: int | str,
        ref: str,
        inputs: dict[str, str | float | bool] = ...,
    ) -> Any:
        """Trigger a workflow_dispatch event.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            workflow_id: The workflow's ID or its file name (e.g. "main.yaml").
            inputs: Input keys and values of the workflow (at most 10).
        """

    @staticmethod
    async def list_workflow_runs(
        *,
        owner: str,
        repo: str,
        workflow_id: int | str = ...,
        actor: str = ...,
        branch: str = ...,
        event: str = ...,
        status: Literal["completed", "action_required", "cancelled", "failure", "neutral", "skipped", "stale", "success", "timed_out", "in_progress", "queued", "requested", "waiting", "pending"] = ...,
        created: str = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List workflow runs.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            created: A date range, e.g. ">=2024-01-01".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_workflow_run(*, owner: str, repo: str, run_id: int) -> Any:
        """Get a workflow run.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def cancel_workflow_run(*, owner: str, repo: str, run_id: int) -> Any:
        """Cancel a workflow run.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def rerun_workflow(
        *,
        owner: str,
        repo: str,
        run_id: int,
        failed_only: bool = False,
        enable_debug_logging: bool = False,
    ) -> Any:
        """Re-run a workflow run, or only its failed jobs.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            failed_only: Default: false.
            enable_debug_logging: Default: false.
        """

    @staticmethod
    async def list_workflow_jobs(
        *,
        owner: str,
        repo: str,
        run_id: int,
        filter: Literal["latest", "all"] = "latest",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the jobs of a workflow run.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            filter: Default: "latest".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_job_logs(
        *,
        owner: str,
        repo: str,
        job_id: int,
        tail_lines: int = 500,
    ) -> GithubGetJobLogsOutput:
        """Get the logs of a job, as text.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            tail_lines: Default: 500.
        """

    @staticmethod
    async def list_artifacts(
        *,
        owner: str,
        repo: str,
        run_id: int = ...,
        name: str = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the artifacts of a repository or of one run.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def download_artifact(
        *,
        owner: str,
        repo: str,
        artifact_id: int,
        archive_format: Literal["zip"],
    ) -> Any:
        """Get a URL to download an artifact from.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_or_update_secret(
        *,
        owner: str,
        repo: str,
        secret_name: str,
        encrypted_value: str,
        key_id: str,
    ) -> Any:
        """Create or update an Actions secret; the value is encrypted with the repository's public key.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_secrets(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the names of a repository's Actions secrets.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def create_check_run(
        *,
        owner: str,
        repo: str,
        name: str,
        head_sha: str,
        details_url: str = ...,
        external_id: str = ...,
        status: Literal["queued", "in_progress", "completed"] = "queued",
        conclusion: Literal["action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"] = ...,
        output: GithubCreateCheckRunInputOutput = ...,
        actions: list[GithubCreateCheckRunInputActionsItem] = ...,
    ) -> Any:
        """Create a check run, with annotations on lines of files.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            head_sha: A full commit SHA.
            details_url: Format: uri.
            status: Default: "queued".
            conclusion: Required when status is completed.
        """

    @staticmethod
    async def list_check_runs(
        *,
        owner: str,
        repo: str,
        ref: str,
        check_name: str = ...,
        status: Literal["queued", "in_progress", "completed"] = ...,
        filter: Literal["latest", "all"] = "latest",
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List the check runs of a ref.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            filter: Default: "latest".
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_combined_status(
        *,
        owner: str,
        repo: str,
        ref: str,
    ) -> GithubGetCombinedStatusOutput:
        """The combined commit status of a ref.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_deployment(
        *,
        owner: str,
        repo: str,
        ref: str,
        task: str = "deploy",
        auto_merge: bool = True,
        required_contexts: list[str] = ...,
        payload: dict[str, Any] | str = ...,
        environment: str = "production",
        transient_environment: bool = False,
    ) -> Any:
        """Create a deployment of a ref.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            task: Default: "deploy".
            auto_merge: Default: true.
            payload: JSON payload with extra information for the deployment.
            environment: Default: "production".
            transient_environment: Default: false.
        """

    @staticmethod
    async def list_deployments(
        *,
        owner: str,
        repo: str,
        sha: str = ...,
        ref: str = ...,
        task: str = ...,
        environment: str | None = ...,
        page: int = 1,
        per_page: int = 30,
    ) -> Any:
        """List deployments.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def create_deployment_status(
        *,
        owner: str,
        repo: str,
        deployment_id: int,
        state: Literal["error", "failure", "inactive", "in_progress", "queued", "pending", "success"],
        log_url: str = ...,
        description: str = ...,
        environment_url: str = ...,
    ) -> Any:
        """Create a status of a deployment.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_webhooks(*, owner: str, repo: str, page: int = 1, per_page: int = 30) -> Any:
        """List the webhooks of a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def get_webhook(*, owner: str, repo: str, hook_id: int) -> Any:
        """Get one webhook of a repository by its hook_id.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_webhook(
        *,
        owner: str,
        repo: str,
        config: GithubCreateWebhookInputConfig,
        name: Literal["web"] = ...,
        active: bool = True,
        events: list[str] = ...,
    ) -> Any:
        """Create a webhook in a repository.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            active: Default: true.
        """

    @staticmethod
    async def update_webhook(
        *,
        owner: str,
        repo: str,
        hook_id: int,
        name: Literal["web"] = ...,
        active: bool = True,
        events: list[str] = ...,
        config: GithubUpdateWebhookInputConfig = ...,
    ) -> Any:
        """Update a webhook; only the fields given change.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
            active: Default: true.
        """

    @staticmethod
    async def delete_webhook(*, owner: str, repo: str, hook_id: int) -> Any:
        """Delete a webhook. This cannot be undone.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def ping_webhook(*, owner: str, repo: str, hook_id: int) -> Any:
        """Send a ping event to a webhook.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def list_gists(*, since: str = ..., page: int = 1, per_page: int = 30) -> Any:
        """List the authenticated user's gists.

        Args:
            since: Only results updated at or after this time (ISO 8601). Format: date-time.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 30.
        """

    @staticmethod
    async def create_gist(
        *,
        files: dict[str, GithubCreateGistInputFilesValue],
        description: str = ...,
        public: Literal["true", "false"] | bool = ...,
    ) -> Any:
        """Create a gist of one or more files.

        Args:
            files: File names and their content.
        """

    @staticmethod
    async def list_notifications(
        *,
        all: bool = False,
        participating: bool = False,
        since: str = ...,
        before: str = ...,
        page: int = 1,
        per_page: int = 50,
    ) -> Any:
        """List notifications, newest first.

        Args:
            all: Default: false.
            participating: Default: false.
            since: Only results updated at or after this time (ISO 8601). Format: date-time.
            before: Format: date-time.
            page: Page number of the results to fetch. Default: 1.
            per_page: Results per page (max 100). Default: 50.
        """

    @staticmethod
    async def mark_notifications_read(*, last_read_at: str = ..., read: bool = ...) -> Any:
        """Mark notifications as read.

        Args:
            last_read_at: Format: date-time.
        """

    @staticmethod
    async def get_discussion(
        *,
        owner: str,
        repo: str,
        discussion_number: int,
    ) -> GithubGetDiscussionOutput:
        """Get a discussion with its comments and their replies.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def create_discussion(
        *,
        owner: str,
        repo: str,
        category: str,
        title: str,
        body: str,
    ) -> Any:
        """Start a discussion in a category.

        Args:
            owner: The account owner of the repository (user or organization).
            repo: The name of the repository, without the .git extension.
        """

    @staticmethod
    async def update_project_item(
        *,
        project_id: str,
        item_id: str,
        field_id: str,
        value: GithubUpdateProjectItemInputValueOption1 | GithubUpdateProjectItemInputValueOption2 | GithubUpdateProjectItemInputValueOption3 | GithubUpdateProjectItemInputValueOption4 | None,
    ) -> Any:
        """Set a field of a project item."""
