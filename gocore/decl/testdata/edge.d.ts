type HelpInput = {
  x?: string;
};
/** A Python builtin that yields to a tool. */
declare function help(input?: HelpInput): Promise<unknown>;

type FetchInput = {
  x?: string;
};
/** A JavaScript convenience that yields to a tool. */
declare function fetch(input?: FetchInput): Promise<unknown>;

declare namespace Any {
  type ThingInput = {
    x?: string;
  };
  /** A namespace named like a typing name. */
  function thing(input?: ThingInput): Promise<unknown>;
}

declare namespace x {
  type InitInput = {
    x?: string;
  };
  /** A member that Python would mangle. */
  function __init__(input?: InitInput): Promise<unknown>;
}

type ABInput = {
  x?: string;
};
/** Hyphen becomes underscore. */
declare function a_b(input?: ABInput): Promise<unknown>;

declare namespace ns {
  type GetThingInput = {
    x?: string;
  };
  /** A hyphenated member. */
  function get_thing(input?: GetThingInput): Promise<unknown>;

  type DeepErInput = {
    x?: string;
  };
  /** Two dots: JavaScript member deep_er, Python ns.deep.er. */
  function deep_er(input?: DeepErInput): Promise<unknown>;
}

declare namespace c {
  type DInput = {
    x?: string;
  };
  /** Takes the JavaScript global c_d first. */
  function d(input?: DInput): Promise<unknown>;
}

type StripeInput = {
  x?: string;
};
/** A tool that is also a namespace. */
declare function stripe(input?: StripeInput): Promise<unknown>;

type NoSchemaInput = Record<string, unknown>;
/** No input schema at all. */
declare function no_schema(input?: NoSchemaInput): Promise<unknown>;

type NullSchemaInput = Record<string, unknown>;
/** A null input schema. */
declare function null_schema(input?: NullSchemaInput): Promise<unknown>;

type EmptyObjectInput = Record<string, unknown>;
/** No parameters. */
declare function empty_object(input?: EmptyObjectInput): Promise<unknown>;

type HostileDocsInput = {
  /** *\/ closes; """"" five quotes; ends with a backslash \ */
  q?: string;
};
/**
 * Ends a comment *\/ and a docstring """ and has \N{BULLET} \x00, a NUL \u0000, a line
 * separator,
 * a CRLF and ends with a quote"
 */
declare function hostile_docs(input?: HostileDocsInput): Promise<unknown>;

type PropertyNamesInput = {
  "my-key": string;
  class?: number;
  __proto__?: boolean;
  __private?: string;
  "123": string;
  ""?: string;
  "with space"?: string;
  "quote\"d"?: string;
  nested?: {
    if: string;
    ok?: string;
  };
};
/** Keys that are no identifiers. */
declare function property_names(input: PropertyNamesInput): Promise<unknown>;

type TypesInput = {
  s: string;
  n?: number;
  i?: number;
  b?: boolean;
  z?: null;
  multi?: number | string | null;
  openapi_nullable?: string | null;
  enum_mixed?: "a" | 1 | true | null | 2.5;
  enum_floats?: 0.5 | 1.5;
  const_true?: true;
  const_obj?: unknown;
  enum_objs?: Record<string, unknown>;
  anything?: unknown;
  nothing?: never;
  everything?: unknown;
  bad_type?: unknown;
  tuple?: [string, number];
  tuple_rest?: [string, ...boolean[]];
  draft4_tuple?: [string, number, ...unknown[]];
  array_any?: unknown[];
  array_of_unions?: (string | number[] | {
    k?: string;
  })[];
  map?: Record<string, number>;
  open_map?: Record<string, unknown>;
  closed_empty?: Record<string, never>;
  props_and_map?: {
    a?: string;
  } & Record<string, number>;
  props_and_open?: {
    a?: string;
    [key: string]: unknown;
  };
  pattern?: Record<string, string | number>;
  all_of?: {
    a: string;
    b?: number;
  };
  all_of_mixed?: string & {
    a?: string;
  };
  base_and_one_of?: {
    kind?: string;
    a: string;
  } | {
    kind?: string;
    b: string;
  };
  only_required_alts?: {
    a?: string;
    b?: string;
  };
  /**
   * When.
   * Format: date-time.
   */
  fmt?: string;
  /** Deprecated. */
  deprecated?: string;
  big?: 1 | 100000000000000000000;
  neg?: -1;
  huge_number?: unknown;
};
/**
 * Every kind of type.
 *
 * Note (input): type "objekt" is no JSON Schema type, so it is typed as unknown.
 */
declare function types(input: TypesInput): Promise<unknown>;

type DefaultsInput = {
  /** Default: "a\"b\\c\n". */
  s?: string;
  /** Default: 3. */
  i?: number;
  /** Default: 3.5. */
  i_float?: number;
  /** Default: 1000.0. */
  n?: number;
  /** Default: true. */
  b?: boolean;
  /** Default: null. */
  z?: string | null;
  /** Default: 5. */
  wrong?: string;
  obj?: Record<string, unknown>;
  /** Default: "z". */
  enum?: "x" | "y";
  /** Default: "y". */
  enum_ok?: "x" | "y";
  req: string;
};
/** Defaults: literals that fit the type are shown. */
declare function defaults(input: DefaultsInput): Promise<unknown>;

type RefsNode = {
  value?: number;
  next?: RefsNode;
};
type RefsEven = {
  odd?: {
    even?: RefsEven;
  };
};
type RefsList = (string | RefsList)[];
type RefsInput = {
  /** From definitions. */
  old?: string;
  escaped?: number;
  node?: RefsNode;
  even?: RefsEven;
  nested_list?: RefsList;
  by_pointer?: string;
  remote?: unknown;
  missing?: unknown;
  self?: RefsInput;
};
/**
 * Local refs of every kind.
 *
 * Note (input): $ref "https://example.com/schema.json" could not be followed, so its type is unknown.
 *
 * Note (input): $ref "#/$defs/nope" could not be followed, so its type is unknown.
 */
declare function refs(input?: RefsInput): Promise<unknown>;

type RootUnionInput = {
  id: number;
} | {
  name: string;
};
/** An input that is not one object. */
declare function root_union(input: RootUnionInput): Promise<unknown>;

type RootStringInput = string;
/** A schema of a string. */
declare function root_string(input: RootStringInput): Promise<unknown>;

type KwargsInput = {
  a?: string;
  kwargs?: number;
} & Record<string, string>;
/** Parameters plus any others. */
declare function kwargs(input?: KwargsInput): Promise<unknown>;

type NotJsonInput = {
  a?: unknown;
};
/** A schema that is not JSON. */
declare function not_json(input?: NotJsonInput): Promise<unknown>;

type WithOutputInput = Record<string, unknown>;
type WithOutputOutput = {
  ok: boolean;
};
/** MCP output schema. */
declare function with_output(input?: WithOutputInput): Promise<WithOutputOutput>;

type WeirdToolInput = {
  x?: string;
};
/** A name with a space: callTool / call_tool only. */
declare function callTool(name: "weird tool", input?: WeirdToolInput): Promise<unknown>;

type ClassInput = {
  x?: string;
};
/** A reserved word in both languages. */
declare function callTool(name: "class", input?: ClassInput): Promise<unknown>;

type MathInput = {
  x?: string;
};
/** A JavaScript builtin's name. */
declare function callTool(name: "Math", input?: MathInput): Promise<unknown>;

type PrintInput = {
  x?: string;
};
/** A Python builtin's name. */
declare function callTool(name: "print", input?: PrintInput): Promise<unknown>;

type ToolsSearchInput = {
  x?: string;
};
/** Under the tools global: reached by name only. */
declare function callTool(name: "tools.search", input?: ToolsSearchInput): Promise<unknown>;

type EmojiCafInput = {
  x?: string;
};
/** Not ASCII. */
declare function callTool(name: "emoji.café", input?: EmojiCafInput): Promise<unknown>;

type CDInput = {
  x?: string;
};
/** So this one is callTool in JavaScript. */
declare function callTool(name: "c_d", input?: CDInput): Promise<unknown>;

type StripeChargesInput = {
  x?: string;
};
/** Under a tool's name. */
declare function callTool(name: "stripe.charges", input?: StripeChargesInput): Promise<unknown>;
