declare namespace github {
  type CreateIssueInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** The title of the issue. */
    title: string;
    /** The contents of the issue, in GitHub Markdown. */
    body?: string;
    /** Logins of users to assign. */
    assignees?: string[];
    /** The number of the milestone, or its title; null removes it. */
    milestone?: number | string | null;
    /** Labels: names, or new labels with a color. */
    labels?: (string | {
      name: string;
      /** Hex color without the leading #. */
      color?: string;
      description?: string | null;
    })[];
    /** The name of the issue type (organizations only). */
    type?: string;
  };
  type CreateIssueOutput = {
    number: number;
    title: string;
    state: "open" | "closed";
    state_reason?: "completed" | "not_planned" | "reopened" | null;
    /** Format: uri. */
    html_url: string;
    user?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    };
    labels?: {
      name: string;
      color?: string;
    }[];
    assignees?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    }[];
    body?: string | null;
    /** Format: date-time. */
    created_at?: string;
  };
  /**
   * Create a new issue in a repository.
   *
   * The authenticated user needs push access to set labels, assignees or a milestone; otherwise they are silently dropped.
   */
  function create_issue(input: CreateIssueInput): Promise<CreateIssueOutput>;

  type GetIssueInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
  };
  type GetIssueOutput = {
    number: number;
    title: string;
    state: "open" | "closed";
    state_reason?: "completed" | "not_planned" | "reopened" | null;
    /** Format: uri. */
    html_url: string;
    user?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    };
    labels?: {
      name: string;
      color?: string;
    }[];
    assignees?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    }[];
    body?: string | null;
    /** Format: date-time. */
    created_at?: string;
  };
  /** Get an issue by its number. */
  function get_issue(input: GetIssueInput): Promise<GetIssueOutput>;

  type UpdateIssueInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    title?: string | null;
    body?: string | null;
    state?: "open" | "closed";
    state_reason?: "completed" | "not_planned" | "reopened" | null;
    labels?: (string | {
      name: string;
      /** Hex color without the leading #. */
      color?: string;
      description?: string | null;
    })[];
    assignees?: string[];
  };
  type UpdateIssueOutput = {
    number: number;
    title: string;
    state: "open" | "closed";
    state_reason?: "completed" | "not_planned" | "reopened" | null;
    /** Format: uri. */
    html_url: string;
    user?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    };
    labels?: {
      name: string;
      color?: string;
    }[];
    assignees?: {
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    }[];
    body?: string | null;
    /** Format: date-time. */
    created_at?: string;
  };
  /** Update an issue: title, body, state, labels, assignees or milestone. */
  function update_issue(input: UpdateIssueInput): Promise<UpdateIssueOutput>;

  type ListIssuesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** A milestone number, or "*" for any, or "none". */
    milestone?: string;
    /**
     * Filter by state.
     * Default: "open".
     */
    state?: "open" | "closed" | "all";
    assignee?: string;
    creator?: string;
    mentioned?: string;
    /** Comma-separated label names, e.g. "bug,ui,@high". */
    labels?: string;
    /** Default: "created". */
    sort?: "created" | "updated" | "comments";
    /**
     * The direction of the sort.
     * Default: "desc".
     */
    direction?: "asc" | "desc";
    /**
     * Only results updated at or after this time (ISO 8601).
     * Format: date-time.
     */
    since?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  type ListIssuesOutput = {
    items: {
      number: number;
      title: string;
      state: "open" | "closed";
      state_reason?: "completed" | "not_planned" | "reopened" | null;
      /** Format: uri. */
      html_url: string;
      user?: {
        login: string;
        id: number;
        type?: "User" | "Organization" | "Bot";
        site_admin?: boolean;
      };
      labels?: {
        name: string;
        color?: string;
      }[];
      assignees?: {
        login: string;
        id: number;
        type?: "User" | "Organization" | "Bot";
        site_admin?: boolean;
      }[];
      body?: string | null;
      /** Format: date-time. */
      created_at?: string;
    }[];
    total_count?: number;
  };
  /** List issues of a repository. Pull requests are issues too; filter them out with the pull_request key of each result. */
  function list_issues(input: ListIssuesInput): Promise<ListIssuesOutput>;

  type LockIssueInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    lock_reason?: "off-topic" | "too heated" | "resolved" | "spam";
  };
  /** Lock an issue's conversation. */
  function lock_issue(input: LockIssueInput): Promise<unknown>;

  type UnlockIssueInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
  };
  /** Unlock an issue's conversation. */
  function unlock_issue(input: UnlockIssueInput): Promise<unknown>;

  type AddAssigneesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    assignees: string[];
  };
  /** Add up to 10 assignees to an issue. */
  function add_assignees(input: AddAssigneesInput): Promise<unknown>;

  type RemoveAssigneesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    assignees: string[];
  };
  /** Remove assignees from an issue. */
  function remove_assignees(input: RemoveAssigneesInput): Promise<unknown>;

  type AddLabelsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    labels: (string | {
      name: string;
      /** Hex color without the leading #. */
      color?: string;
      description?: string | null;
    })[];
  };
  /** Add labels to an issue. */
  function add_labels(input: AddLabelsInput): Promise<unknown>;

  type RemoveLabelInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    name: string;
  };
  /** Remove one label from an issue. */
  function remove_label(input: RemoveLabelInput): Promise<unknown>;

  type ListIssueEventsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the events of an issue (labeled, assigned, closed, ...). */
  function list_issue_events(input: ListIssueEventsInput): Promise<unknown>;

  type GetIssueTimelineInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Get the timeline of an issue: comments, events and cross-references in order. */
  function get_issue_timeline(input: GetIssueTimelineInput): Promise<unknown>;

  type ListIssueCommentsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
    /**
     * Only results updated at or after this time (ISO 8601).
     * Format: date-time.
     */
    since?: string;
    sort?: "created" | "updated";
    /**
     * The direction of the sort.
     * Default: "desc".
     */
    direction?: "asc" | "desc";
  };
  /** List the issue comments of a repository. */
  function list_issue_comments(input: ListIssueCommentsInput): Promise<unknown>;

  type GetIssueCommentInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** Format: int64. */
    comment_id: number;
  };
  /** Get one issue comment of a repository by its comment_id. */
  function get_issue_comment(input: GetIssueCommentInput): Promise<unknown>;

  type CreateIssueCommentInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    /** The comment, in GitHub Markdown. */
    body: string;
  };
  /** Create a issue comment in a repository. */
  function create_issue_comment(input: CreateIssueCommentInput): Promise<unknown>;

  type UpdateIssueCommentInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number?: number;
    /** The comment, in GitHub Markdown. */
    body?: string;
    /** Format: int64. */
    comment_id: number;
  };
  /** Update a issue comment; only the fields given change. */
  function update_issue_comment(input: UpdateIssueCommentInput): Promise<unknown>;

  type DeleteIssueCommentInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** Format: int64. */
    comment_id: number;
  };
  /** Delete a issue comment. This cannot be undone. */
  function delete_issue_comment(input: DeleteIssueCommentInput): Promise<unknown>;

  type CreateReactionInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    subject: {
      kind: "issue";
      issue_number: number;
    } | {
      kind: "issue_comment";
      comment_id: number;
    } | {
      kind: "review_comment";
      comment_id: number;
    };
    /** The reaction. */
    content: "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";
  };
  /** React to an issue, a pull request or a comment. */
  function create_reaction(input: CreateReactionInput): Promise<unknown>;

  type ListReactionsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    /** The reaction. */
    content?: "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";
  };
  /** List the reactions to an issue. */
  function list_reactions(input: ListReactionsInput): Promise<unknown>;

  type DeleteReactionInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    issue_number: number;
    reaction_id: number;
  };
  /** Delete a reaction. */
  function delete_reaction(input: DeleteReactionInput): Promise<unknown>;

  type ListLabelsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the labels of a repository. */
  function list_labels(input: ListLabelsInput): Promise<unknown>;

  type GetLabelInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name: string;
  };
  /** Get one label of a repository by its name. */
  function get_label(input: GetLabelInput): Promise<unknown>;

  type CreateLabelInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name: string;
    color?: string;
    description?: string;
  };
  /** Create a label in a repository. */
  function create_label(input: CreateLabelInput): Promise<unknown>;

  type UpdateLabelInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name: string;
    color?: string;
    description?: string;
    new_name?: string;
  };
  /** Update a label; only the fields given change. */
  function update_label(input: UpdateLabelInput): Promise<unknown>;

  type DeleteLabelInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name: string;
  };
  /** Delete a label. This cannot be undone. */
  function delete_label(input: DeleteLabelInput): Promise<unknown>;

  type ListMilestonesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
    /**
     * Filter by state.
     * Default: "open".
     */
    state?: "open" | "closed" | "all";
    /** Default: "due_on". */
    sort?: "due_on" | "completeness";
    /**
     * The direction of the sort.
     * Default: "desc".
     */
    direction?: "asc" | "desc";
  };
  /** List the milestones of a repository. */
  function list_milestones(input: ListMilestonesInput): Promise<unknown>;

  type GetMilestoneInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    milestone_number: number;
  };
  /** Get one milestone of a repository by its milestone_number. */
  function get_milestone(input: GetMilestoneInput): Promise<unknown>;

  type CreateMilestoneInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    title: string;
    /** Default: "open". */
    state?: "open" | "closed";
    description?: string;
    /** Format: date-time. */
    due_on?: string;
  };
  /** Create a milestone in a repository. */
  function create_milestone(input: CreateMilestoneInput): Promise<unknown>;

  type UpdateMilestoneInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    title?: string;
    /** Default: "open". */
    state?: "open" | "closed";
    description?: string;
    /** Format: date-time. */
    due_on?: string;
    milestone_number: number;
  };
  /** Update a milestone; only the fields given change. */
  function update_milestone(input: UpdateMilestoneInput): Promise<unknown>;

  type DeleteMilestoneInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    milestone_number: number;
  };
  /** Delete a milestone. This cannot be undone. */
  function delete_milestone(input: DeleteMilestoneInput): Promise<unknown>;

  type CreatePullRequestInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    title?: string;
    /** The branch with your changes; "user:branch" for a branch of a fork. */
    head: string;
    head_repo?: string;
    /** The branch to merge into. */
    base: string;
    body?: string;
    /** Default: false. */
    draft?: boolean;
    /** Default: true. */
    maintainer_can_modify?: boolean;
    /**
     * Turn this issue into the pull request (instead of title and body).
     * Deprecated.
     */
    issue?: number;
  };
  type CreatePullRequestOutput = {
    number: number;
    state: "open" | "closed";
    draft?: boolean;
    merged?: boolean;
    mergeable?: boolean | null;
    /** A branch of a repository. */
    head: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    /** A branch of a repository. */
    base: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    requested_reviewers?: ({
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    } | {
      slug: string;
      name?: string;
    })[];
  };
  /** Open a pull request from head into base. */
  function create_pull_request(input: CreatePullRequestInput): Promise<CreatePullRequestOutput>;

  type GetPullRequestInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
  };
  type GetPullRequestOutput = {
    number: number;
    state: "open" | "closed";
    draft?: boolean;
    merged?: boolean;
    mergeable?: boolean | null;
    /** A branch of a repository. */
    head: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    /** A branch of a repository. */
    base: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    requested_reviewers?: ({
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    } | {
      slug: string;
      name?: string;
    })[];
  };
  /** Get a pull request. */
  function get_pull_request(input: GetPullRequestInput): Promise<GetPullRequestOutput>;

  type UpdatePullRequestInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    title?: string;
    body?: string;
    state?: "open" | "closed";
    base?: string;
    maintainer_can_modify?: boolean;
  };
  type UpdatePullRequestOutput = {
    number: number;
    state: "open" | "closed";
    draft?: boolean;
    merged?: boolean;
    mergeable?: boolean | null;
    /** A branch of a repository. */
    head: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    /** A branch of a repository. */
    base: {
      ref: string;
      /** A full commit SHA. */
      sha: string;
      label?: string;
    };
    requested_reviewers?: ({
      login: string;
      id: number;
      type?: "User" | "Organization" | "Bot";
      site_admin?: boolean;
    } | {
      slug: string;
      name?: string;
    })[];
  };
  /** Update a pull request. */
  function update_pull_request(input: UpdatePullRequestInput): Promise<UpdatePullRequestOutput>;

  type ListPullRequestsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Filter by state.
     * Default: "open".
     */
    state?: "open" | "closed" | "all";
    head?: string;
    base?: string;
    /** Default: "created". */
    sort?: "created" | "updated" | "popularity" | "long-running";
    /**
     * The direction of the sort.
     * Default: "desc".
     */
    direction?: "asc" | "desc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List pull requests. */
  function list_pull_requests(input: ListPullRequestsInput): Promise<unknown>;

  type MergePullRequestInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    commit_title?: string;
    commit_message?: string;
    /** The SHA the head must match to allow the merge. */
    sha?: string;
    /** Default: "merge". */
    merge_method?: "merge" | "squash" | "rebase";
  };
  type MergePullRequestOutput = {
    sha?: string;
    merged: boolean;
    message: string;
  };
  /** Merge a pull request. */
  function merge_pull_request(input: MergePullRequestInput): Promise<MergePullRequestOutput>;

  type ListPullRequestFilesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  type ListPullRequestFilesOutput = {
    filename: string;
    status: "added" | "removed" | "modified" | "renamed" | "copied" | "changed" | "unchanged";
    additions?: number;
    deletions?: number;
    patch?: string;
  }[];
  /** List the files a pull request changes (at most 3000). */
  function list_pull_request_files(input: ListPullRequestFilesInput): Promise<ListPullRequestFilesOutput>;

  type ListPullRequestCommitsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the commits of a pull request. */
  function list_pull_request_commits(input: ListPullRequestCommitsInput): Promise<unknown>;

  type RequestReviewersInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    reviewers?: string[];
    team_reviewers?: string[];
  };
  /** Request reviews from users or teams. */
  function request_reviewers(input: RequestReviewersInput): Promise<unknown>;

  type CreateReviewInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    /** A full commit SHA. */
    commit_id?: string;
    body?: string;
    /** Leave it out to create a pending review. */
    event?: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
    comments?: {
      /** The file's path relative to the repository root. */
      path: string;
      /** Deprecated. */
      position?: number;
      body: string;
      line?: number;
      side?: "LEFT" | "RIGHT";
      start_line?: number;
      start_side?: "LEFT" | "RIGHT" | "side";
    }[];
  };
  /** Create a review of a pull request, with comments on lines of the diff. */
  function create_review(input: CreateReviewInput): Promise<unknown>;

  type ListReviewsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the reviews of a pull request. */
  function list_reviews(input: ListReviewsInput): Promise<unknown>;

  type SubmitReviewInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    review_id: number;
    body?: string;
    event: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
  };
  /** Submit a pending review. */
  function submit_review(input: SubmitReviewInput): Promise<unknown>;

  type DismissReviewInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    review_id: number;
    message: string;
  };
  /** Dismiss a review. */
  function dismiss_review(input: DismissReviewInput): Promise<unknown>;

  type UpdatePullRequestBranchInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    pull_number: number;
    /** A full commit SHA. */
    expected_head_sha?: string;
  };
  /** Bring a pull request's branch up to date with its base. */
  function update_pull_request_branch(input: UpdatePullRequestBranchInput): Promise<unknown>;

  type CreateRepositoryInput = {
    name: string;
    /** Create it in this organization instead. */
    org?: string;
    description?: string;
    /** Format: uri. */
    homepage?: string;
    /** Default: false. */
    private?: boolean;
    visibility?: "public" | "private" | "internal";
    /** Default: true. */
    has_issues?: boolean;
    /** Default: true. */
    has_projects?: boolean;
    /** Default: true. */
    has_wiki?: boolean;
    allow_squash_merge?: boolean;
    allow_merge_commit?: boolean;
    allow_rebase_merge?: boolean;
    /** Default: false. */
    delete_branch_on_merge?: boolean;
    security_and_analysis?: {
      advanced_security?: {
        status?: "enabled" | "disabled";
      };
      secret_scanning?: {
        status?: "enabled" | "disabled";
      };
    } | null;
    /** Default: false. */
    auto_init?: boolean;
    gitignore_template?: string;
    license_template?: string;
  };
  /** Create a repository for the authenticated user, or in an organization. */
  function create_repository(input: CreateRepositoryInput): Promise<unknown>;

  type GetRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  /** Get a repository. */
  function get_repository(input: GetRepositoryInput): Promise<unknown>;

  type UpdateRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name?: string;
    description?: string;
    /** Format: uri. */
    homepage?: string;
    /** Default: false. */
    private?: boolean;
    visibility?: "public" | "private" | "internal";
    /** Default: true. */
    has_issues?: boolean;
    /** Default: true. */
    has_projects?: boolean;
    /** Default: true. */
    has_wiki?: boolean;
    allow_squash_merge?: boolean;
    allow_merge_commit?: boolean;
    allow_rebase_merge?: boolean;
    /** Default: false. */
    delete_branch_on_merge?: boolean;
    security_and_analysis?: {
      advanced_security?: {
        status?: "enabled" | "disabled";
      };
      secret_scanning?: {
        status?: "enabled" | "disabled";
      };
    } | null;
    default_branch?: string;
    archived?: boolean;
  };
  /** Update a repository's settings. */
  function update_repository(input: UpdateRepositoryInput): Promise<unknown>;

  type DeleteRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  /** Delete a repository. Needs the delete_repo scope. */
  function delete_repository(input: DeleteRepositoryInput): Promise<unknown>;

  type ListUserRepositoriesInput = {
    username: string;
    /** Default: "owner". */
    type?: "all" | "owner" | "member";
    /** Default: "full_name". */
    sort?: "created" | "updated" | "pushed" | "full_name";
    /**
     * The direction of the sort.
     * Default: "desc".
     */
    direction?: "asc" | "desc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the repositories of a user. */
  function list_user_repositories(input: ListUserRepositoriesInput): Promise<unknown>;

  type ListOrgRepositoriesInput = {
    org: string;
    type?: "all" | "public" | "private" | "forks" | "sources" | "member";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the repositories of an organization. */
  function list_org_repositories(input: ListOrgRepositoriesInput): Promise<unknown>;

  type ForkRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    organization?: string;
    name?: string;
    default_branch_only?: boolean;
  };
  /** Fork a repository. */
  function fork_repository(input: ForkRepositoryInput): Promise<unknown>;

  type ListForksInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** Default: "newest". */
    sort?: "newest" | "oldest" | "stargazers" | "watchers";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the forks of a repository. */
  function list_forks(input: ListForksInput): Promise<unknown>;

  type ListLanguagesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  type ListLanguagesOutput = Record<string, number>;
  /** The languages of a repository, with bytes of code each. */
  function list_languages(input: ListLanguagesInput): Promise<ListLanguagesOutput>;

  type ListTopicsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  type ListTopicsOutput = {
    names: string[];
  };
  /** The topics of a repository. */
  function list_topics(input: ListTopicsInput): Promise<ListTopicsOutput>;

  type ReplaceTopicsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    names: string[];
  };
  /** Replace all topics of a repository. */
  function replace_topics(input: ReplaceTopicsInput): Promise<unknown>;

  type ListContributorsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** Default: false. */
    anon?: boolean;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the contributors of a repository, most commits first. */
  function list_contributors(input: ListContributorsInput): Promise<unknown>;

  type StarRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  /** Star a repository. */
  function star_repository(input: StarRepositoryInput): Promise<unknown>;

  type UnstarRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  /** Unstar a repository. */
  function unstar_repository(input: UnstarRepositoryInput): Promise<unknown>;

  type ListStargazersInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the users who starred a repository. */
  function list_stargazers(input: ListStargazersInput): Promise<unknown>;

  type TransferRepositoryInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    new_owner: string;
    new_name?: string;
    team_ids?: number[];
  };
  /** Transfer a repository to another user or organization. */
  function transfer_repository(input: TransferRepositoryInput): Promise<unknown>;

  type ListBranchesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    protected?: boolean;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List branches. */
  function list_branches(input: ListBranchesInput): Promise<unknown>;

  type GetBranchInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    branch: string;
  };
  /** Get a branch. */
  function get_branch(input: GetBranchInput): Promise<unknown>;

  type CreateBranchInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    branch: string;
    /** A full commit SHA. */
    from_sha: string;
  };
  /** Create a branch from a commit. */
  function create_branch(input: CreateBranchInput): Promise<unknown>;

  type RenameBranchInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    branch: string;
    new_name: string;
  };
  /** Rename a branch. */
  function rename_branch(input: RenameBranchInput): Promise<unknown>;

  type UpdateBranchProtectionInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    branch: string;
    required_status_checks: {
      strict: boolean;
      checks: {
        context: string;
        app_id?: number;
      }[];
    } | null;
    enforce_admins: boolean | null;
    required_pull_request_reviews: {
      dismiss_stale_reviews?: boolean;
      require_code_owner_reviews?: boolean;
      required_approving_review_count?: number;
    } | null;
    restrictions: {
      users: string[];
      teams: string[];
      apps?: string[];
    } | null;
  };
  /** Protect a branch: required checks, reviews and restrictions. */
  function update_branch_protection(input: UpdateBranchProtectionInput): Promise<unknown>;

  type ListCommitsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** A SHA or branch to start from. */
    sha?: string;
    path?: string;
    author?: string;
    /**
     * Only results updated at or after this time (ISO 8601).
     * Format: date-time.
     */
    since?: string;
    /** Format: date-time. */
    until?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List commits, newest first. */
  function list_commits(input: ListCommitsInput): Promise<unknown>;

  type GetCommitInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    ref: string;
  };
  /** Get a commit with its diff stats. */
  function get_commit(input: GetCommitInput): Promise<unknown>;

  type CompareCommitsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    basehead: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Compare two commits: "base...head". */
  function compare_commits(input: CompareCommitsInput): Promise<unknown>;

  type GetFileContentsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    path: string;
    /** A branch, tag or SHA; the default branch when left out. */
    ref?: string;
  };
  type GetFileContentsOutput = {
    type: "file";
    encoding?: "base64";
    size?: number;
    name?: string;
    path?: string;
    content: string;
    sha: string;
  } | {
    type: "file" | "dir" | "symlink" | "submodule";
    name: string;
    path: string;
  }[];
  /** Get a file or a directory listing. Files come base64-encoded. */
  function get_file_contents(input: GetFileContentsInput): Promise<GetFileContentsOutput>;

  type CreateOrUpdateFileInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    path: string;
    /** The commit message. */
    message: string;
    /** The new file content, base64-encoded. */
    content: string;
    /** The blob SHA of the file being replaced (required to update). */
    sha?: string;
    branch?: string;
    committer?: {
      name: string;
      /** Format: email. */
      email: string;
      /** Format: date-time. */
      date?: string;
    };
  };
  /** Create or replace a file in one commit. */
  function create_or_update_file(input: CreateOrUpdateFileInput): Promise<unknown>;

  type DeleteFileInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    path: string;
    message: string;
    sha: string;
    branch?: string;
  };
  /** Delete a file in one commit. */
  function delete_file(input: DeleteFileInput): Promise<unknown>;

  type PushFilesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    branch: string;
    message: string;
    files: {
      path: string;
      content: string;
    }[];
  };
  /** Commit several files at once to a branch. */
  function push_files(input: PushFilesInput): Promise<unknown>;

  type CreateTreeInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    base_tree?: string;
    tree: ({
      path: string;
      mode: "100644" | "100755" | "040000" | "160000" | "120000";
      type: "blob" | "tree" | "commit";
      sha: string | null;
    } | {
      path: string;
      mode: "100644" | "100755" | "040000" | "160000" | "120000";
      type: "blob" | "tree" | "commit";
      content: string;
    })[];
  };
  /** Create a git tree; each entry gives content or an existing object's SHA. */
  function create_tree(input: CreateTreeInput): Promise<unknown>;

  type GetTreeInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    tree_sha: string;
    recursive?: boolean;
  };
  type GetTreeOutput = {
    sha: string;
    truncated?: boolean;
    tree: {
      path: string;
      type: string;
      sha: string;
      subtree?: GetTreeOutput;
    }[];
  };
  /** Get a git tree, optionally recursively. */
  function get_tree(input: GetTreeInput): Promise<GetTreeOutput>;

  type CreateTagInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    tag: string;
    message: string;
    /** A full commit SHA. */
    object: string;
    type: "commit" | "tree" | "blob";
    tagger?: {
      name?: string;
      email?: string;
      /** Format: date-time. */
      date?: string;
    };
  };
  /** Create an annotated tag object and its reference. */
  function create_tag(input: CreateTagInput): Promise<unknown>;

  type ListTagsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the tags of a repository. */
  function list_tags(input: ListTagsInput): Promise<unknown>;

  type ListReleasesInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the releases of a repository. */
  function list_releases(input: ListReleasesInput): Promise<unknown>;

  type GetReleaseInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    release_id: number;
  };
  /** Get one release of a repository by its release_id. */
  function get_release(input: GetReleaseInput): Promise<unknown>;

  type CreateReleaseInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    tag_name: string;
    target_commitish?: string;
    name?: string;
    body?: string;
    /** Default: false. */
    draft?: boolean;
    /** Default: false. */
    prerelease?: boolean;
    /** Default: "true". */
    make_latest?: "true" | "false" | "legacy";
    /** Default: false. */
    generate_release_notes?: boolean;
  };
  /** Create a release in a repository. */
  function create_release(input: CreateReleaseInput): Promise<unknown>;

  type UpdateReleaseInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    tag_name?: string;
    target_commitish?: string;
    name?: string;
    body?: string;
    /** Default: false. */
    draft?: boolean;
    /** Default: false. */
    prerelease?: boolean;
    /** Default: "true". */
    make_latest?: "true" | "false" | "legacy";
    /** Default: false. */
    generate_release_notes?: boolean;
    release_id: number;
  };
  /** Update a release; only the fields given change. */
  function update_release(input: UpdateReleaseInput): Promise<unknown>;

  type DeleteReleaseInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    release_id: number;
  };
  /** Delete a release. This cannot be undone. */
  function delete_release(input: DeleteReleaseInput): Promise<unknown>;

  type GetLatestReleaseInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
  };
  /** Get the latest published full release. */
  function get_latest_release(input: GetLatestReleaseInput): Promise<unknown>;

  type SearchRepositoriesInput = {
    /** Search words and qualifiers, e.g. "tetris language:assembly". */
    q: string;
    sort?: "stars" | "forks" | "help-wanted-issues" | "updated";
    /** Default: "desc". */
    order?: "desc" | "asc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Search repositories. */
  function search_repositories(input: SearchRepositoriesInput): Promise<unknown>;

  type SearchCodeInput = {
    q: string;
    /** Deprecated. */
    sort?: "indexed";
    /** Default: "desc". */
    order?: "desc" | "asc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Search code in the default branches of repositories. */
  function search_code(input: SearchCodeInput): Promise<unknown>;

  type SearchIssuesInput = {
    q: string;
    /** Qualifiers added to q. */
    qualifiers?: {
      is?: ("issue" | "pr" | "open" | "closed" | "merged" | "draft" | "locked")[];
      repo?: string;
      author?: string;
      label?: string[];
      created?: string | {
        /** Format: date. */
        from?: string;
        /** Format: date. */
        to?: string;
      };
      in?: "title" | "body" | "comments";
    };
    sort?: "comments" | "reactions" | "reactions-+1" | "reactions--1" | "reactions-smile" | "interactions" | "created" | "updated";
    /** Default: "desc". */
    order?: "desc" | "asc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  type SearchIssuesOutput = {
    total_count: number;
    incomplete_results?: boolean;
    items: {
      number: number;
      title: string;
      state: "open" | "closed";
      state_reason?: "completed" | "not_planned" | "reopened" | null;
      /** Format: uri. */
      html_url: string;
      user?: {
        login: string;
        id: number;
        type?: "User" | "Organization" | "Bot";
        site_admin?: boolean;
      };
      labels?: {
        name: string;
        color?: string;
      }[];
      assignees?: {
        login: string;
        id: number;
        type?: "User" | "Organization" | "Bot";
        site_admin?: boolean;
      }[];
      body?: string | null;
      /** Format: date-time. */
      created_at?: string;
    }[];
  };
  /** Search issues and pull requests. */
  function search_issues(input: SearchIssuesInput): Promise<SearchIssuesOutput>;

  type SearchUsersInput = {
    q: string;
    sort?: "followers" | "repositories" | "joined";
    /** Default: "desc". */
    order?: "desc" | "asc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Search users. */
  function search_users(input: SearchUsersInput): Promise<unknown>;

  type SearchCommitsInput = {
    q: string;
    sort?: "author-date" | "committer-date";
    /** Default: "desc". */
    order?: "desc" | "asc";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** Search commits. */
  function search_commits(input: SearchCommitsInput): Promise<unknown>;

  type GetMeInput = Record<string, unknown>;
  type GetMeOutput = {
    login: string;
    id: number;
    type?: "User" | "Organization" | "Bot";
    site_admin?: boolean;
  };
  /** Get the authenticated user. */
  function get_me(input?: GetMeInput): Promise<GetMeOutput>;

  type GetUserInput = {
    username: string;
  };
  type GetUserOutput = {
    login: string;
    id: number;
    type?: "User" | "Organization" | "Bot";
    site_admin?: boolean;
  };
  /** Get a user by login. */
  function get_user(input: GetUserInput): Promise<GetUserOutput>;

  type ListFollowersInput = {
    username: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List a user's followers. */
  function list_followers(input: ListFollowersInput): Promise<unknown>;

  type GetOrganizationInput = {
    org: string;
  };
  /** Get an organization. */
  function get_organization(input: GetOrganizationInput): Promise<unknown>;

  type ListOrgMembersInput = {
    org: string;
    /** Default: "all". */
    filter?: "2fa_disabled" | "all";
    /** Default: "all". */
    role?: "all" | "admin" | "member";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the members of an organization. */
  function list_org_members(input: ListOrgMembersInput): Promise<unknown>;

  type ListTeamsInput = {
    org: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the teams of an organization. */
  function list_teams(input: ListTeamsInput): Promise<unknown>;

  type CreateTeamInput = {
    org: string;
    name: string;
    description?: string;
    maintainers?: string[];
    privacy?: "secret" | "closed";
    /** Default: "pull". Deprecated. */
    permission?: "pull" | "push";
    parent_team_id?: number;
  };
  /** Create a team in an organization. */
  function create_team(input: CreateTeamInput): Promise<unknown>;

  type AddTeamMemberInput = {
    org: string;
    team_slug: string;
    username: string;
    /** Default: "member". */
    role?: "member" | "maintainer";
  };
  /** Add or update a team membership. */
  function add_team_member(input: AddTeamMemberInput): Promise<unknown>;

  type ListCollaboratorsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** Default: "all". */
    affiliation?: "outside" | "direct" | "all";
    permission?: "pull" | "triage" | "push" | "maintain" | "admin";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the collaborators of a repository. */
  function list_collaborators(input: ListCollaboratorsInput): Promise<unknown>;

  type AddCollaboratorInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    username: string;
    /** Default: "push". */
    permission?: string;
  };
  /** Invite a collaborator to a repository. */
  function add_collaborator(input: AddCollaboratorInput): Promise<unknown>;

  type ListWorkflowsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the workflows of a repository. */
  function list_workflows(input: ListWorkflowsInput): Promise<unknown>;

  type RunWorkflowInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /** The workflow's ID or its file name (e.g. "main.yaml"). */
    workflow_id: number | string;
    ref: string;
    /** Input keys and values of the workflow (at most 10). */
    inputs?: Record<string, string | number | boolean>;
  };
  /** Trigger a workflow_dispatch event. */
  function run_workflow(input: RunWorkflowInput): Promise<unknown>;

  type ListWorkflowRunsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    workflow_id?: number | string;
    actor?: string;
    branch?: string;
    event?: string;
    status?: "completed" | "action_required" | "cancelled" | "failure" | "neutral" | "skipped" | "stale" | "success" | "timed_out" | "in_progress" | "queued" | "requested" | "waiting" | "pending";
    /** A date range, e.g. ">=2024-01-01". */
    created?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List workflow runs. */
  function list_workflow_runs(input: ListWorkflowRunsInput): Promise<unknown>;

  type GetWorkflowRunInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    run_id: number;
  };
  /** Get a workflow run. */
  function get_workflow_run(input: GetWorkflowRunInput): Promise<unknown>;

  type CancelWorkflowRunInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    run_id: number;
  };
  /** Cancel a workflow run. */
  function cancel_workflow_run(input: CancelWorkflowRunInput): Promise<unknown>;

  type RerunWorkflowInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    run_id: number;
    /** Default: false. */
    failed_only?: boolean;
    /** Default: false. */
    enable_debug_logging?: boolean;
  };
  /** Re-run a workflow run, or only its failed jobs. */
  function rerun_workflow(input: RerunWorkflowInput): Promise<unknown>;

  type ListWorkflowJobsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    run_id: number;
    /** Default: "latest". */
    filter?: "latest" | "all";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the jobs of a workflow run. */
  function list_workflow_jobs(input: ListWorkflowJobsInput): Promise<unknown>;

  type GetJobLogsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    job_id: number;
    /** Default: 500. */
    tail_lines?: number;
  };
  type GetJobLogsOutput = {
    logs: string;
    truncated?: boolean;
  };
  /** Get the logs of a job, as text. */
  function get_job_logs(input: GetJobLogsInput): Promise<GetJobLogsOutput>;

  type ListArtifactsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    run_id?: number;
    name?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the artifacts of a repository or of one run. */
  function list_artifacts(input: ListArtifactsInput): Promise<unknown>;

  type DownloadArtifactInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    artifact_id: number;
    archive_format: "zip";
  };
  /** Get a URL to download an artifact from. */
  function download_artifact(input: DownloadArtifactInput): Promise<unknown>;

  type CreateOrUpdateSecretInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    secret_name: string;
    encrypted_value: string;
    key_id: string;
  };
  /** Create or update an Actions secret; the value is encrypted with the repository's public key. */
  function create_or_update_secret(input: CreateOrUpdateSecretInput): Promise<unknown>;

  type ListSecretsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the names of a repository's Actions secrets. */
  function list_secrets(input: ListSecretsInput): Promise<unknown>;

  type CreateCheckRunInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name: string;
    /** A full commit SHA. */
    head_sha: string;
    /** Format: uri. */
    details_url?: string;
    external_id?: string;
    /** Default: "queued". */
    status?: "queued" | "in_progress" | "completed";
    /** Required when status is completed. */
    conclusion?: "action_required" | "cancelled" | "failure" | "neutral" | "success" | "skipped" | "timed_out";
    output?: {
      title: string;
      summary: string;
      text?: string;
      annotations?: {
        path: string;
        start_line: number;
        end_line: number;
        annotation_level: "notice" | "warning" | "failure";
        message: string;
        title?: string;
      }[];
      images?: {
        alt: string;
        image_url: string;
        caption?: string;
      }[];
    };
    actions?: {
      label: string;
      description: string;
      identifier: string;
    }[];
  };
  /** Create a check run, with annotations on lines of files. */
  function create_check_run(input: CreateCheckRunInput): Promise<unknown>;

  type ListCheckRunsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    ref: string;
    check_name?: string;
    status?: "queued" | "in_progress" | "completed";
    /** Default: "latest". */
    filter?: "latest" | "all";
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the check runs of a ref. */
  function list_check_runs(input: ListCheckRunsInput): Promise<unknown>;

  type GetCombinedStatusInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    ref: string;
  };
  type GetCombinedStatusOutput = {
    state: "failure" | "pending" | "success";
    total_count?: number;
    statuses: {
      context: string;
      state: "error" | "failure" | "pending" | "success";
      target_url?: string | null;
    }[];
  };
  /** The combined commit status of a ref. */
  function get_combined_status(input: GetCombinedStatusInput): Promise<GetCombinedStatusOutput>;

  type CreateDeploymentInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    ref: string;
    /** Default: "deploy". */
    task?: string;
    /** Default: true. */
    auto_merge?: boolean;
    required_contexts?: string[];
    /** JSON payload with extra information for the deployment. */
    payload?: Record<string, unknown> | string;
    /** Default: "production". */
    environment?: string;
    /** Default: false. */
    transient_environment?: boolean;
  };
  /** Create a deployment of a ref. */
  function create_deployment(input: CreateDeploymentInput): Promise<unknown>;

  type ListDeploymentsInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    sha?: string;
    ref?: string;
    task?: string;
    environment?: string | null;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List deployments. */
  function list_deployments(input: ListDeploymentsInput): Promise<unknown>;

  type CreateDeploymentStatusInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    deployment_id: number;
    state: "error" | "failure" | "inactive" | "in_progress" | "queued" | "pending" | "success";
    log_url?: string;
    description?: string;
    environment_url?: string;
  };
  /** Create a status of a deployment. */
  function create_deployment_status(input: CreateDeploymentStatusInput): Promise<unknown>;

  type ListWebhooksInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the webhooks of a repository. */
  function list_webhooks(input: ListWebhooksInput): Promise<unknown>;

  type GetWebhookInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    hook_id: number;
  };
  /** Get one webhook of a repository by its hook_id. */
  function get_webhook(input: GetWebhookInput): Promise<unknown>;

  type CreateWebhookInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name?: "web";
    /** Default: true. */
    active?: boolean;
    events?: string[];
    config: {
      /** Format: uri. */
      url: string;
      /** Default: "form". */
      content_type?: "json" | "form";
      secret?: string;
      insecure_ssl?: "0" | "1" | 0 | 1;
    };
  };
  /** Create a webhook in a repository. */
  function create_webhook(input: CreateWebhookInput): Promise<unknown>;

  type UpdateWebhookInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    name?: "web";
    /** Default: true. */
    active?: boolean;
    events?: string[];
    config?: {
      /** Format: uri. */
      url: string;
      /** Default: "form". */
      content_type?: "json" | "form";
      secret?: string;
      insecure_ssl?: "0" | "1" | 0 | 1;
    };
    hook_id: number;
  };
  /** Update a webhook; only the fields given change. */
  function update_webhook(input: UpdateWebhookInput): Promise<unknown>;

  type DeleteWebhookInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    hook_id: number;
  };
  /** Delete a webhook. This cannot be undone. */
  function delete_webhook(input: DeleteWebhookInput): Promise<unknown>;

  type PingWebhookInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    hook_id: number;
  };
  /** Send a ping event to a webhook. */
  function ping_webhook(input: PingWebhookInput): Promise<unknown>;

  type ListGistsInput = {
    /**
     * Only results updated at or after this time (ISO 8601).
     * Format: date-time.
     */
    since?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 30.
     */
    per_page?: number;
  };
  /** List the authenticated user's gists. */
  function list_gists(input?: ListGistsInput): Promise<unknown>;

  type CreateGistInput = {
    description?: string;
    public?: boolean | "true" | "false";
    /** File names and their content. */
    files: Record<string, {
      content: string;
    }>;
  };
  /** Create a gist of one or more files. */
  function create_gist(input: CreateGistInput): Promise<unknown>;

  type ListNotificationsInput = {
    /** Default: false. */
    all?: boolean;
    /** Default: false. */
    participating?: boolean;
    /**
     * Only results updated at or after this time (ISO 8601).
     * Format: date-time.
     */
    since?: string;
    /** Format: date-time. */
    before?: string;
    /**
     * Page number of the results to fetch.
     * Default: 1.
     */
    page?: number;
    /**
     * Results per page (max 100).
     * Default: 50.
     */
    per_page?: number;
  };
  /** List notifications, newest first. */
  function list_notifications(input?: ListNotificationsInput): Promise<unknown>;

  type MarkNotificationsReadInput = {
    /** Format: date-time. */
    last_read_at?: string;
    read?: boolean;
  };
  /** Mark notifications as read. */
  function mark_notifications_read(input?: MarkNotificationsReadInput): Promise<unknown>;

  type GetDiscussionInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    discussion_number: number;
  };
  type GetDiscussionComment = {
    id: string;
    author?: string | null;
    body: string;
    is_answer?: boolean;
    replies?: GetDiscussionComment[];
  };
  type GetDiscussionOutput = {
    number: number;
    title: string;
    category?: string;
    comments: GetDiscussionComment[];
  };
  /** Get a discussion with its comments and their replies. */
  function get_discussion(input: GetDiscussionInput): Promise<GetDiscussionOutput>;

  type CreateDiscussionInput = {
    /** The account owner of the repository (user or organization). */
    owner: string;
    /** The name of the repository, without the .git extension. */
    repo: string;
    category: string;
    title: string;
    body: string;
  };
  /** Start a discussion in a category. */
  function create_discussion(input: CreateDiscussionInput): Promise<unknown>;

  type UpdateProjectItemInput = {
    project_id: string;
    item_id: string;
    field_id: string;
    value: {
      text: string;
    } | {
      number: number;
    } | {
      /** Format: date. */
      date: string;
    } | {
      single_select_option_id: string;
    } | null;
  };
  /** Set a field of a project item. */
  function update_project_item(input: UpdateProjectItemInput): Promise<unknown>;
}
