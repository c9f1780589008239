// Section 'tools' of prelude.js: tool namespaces and the `tools` global
// (docs/mcp.md). A tool whose name has a dot, such as the MCP tool
// "github.create_issue", is also reachable as github.create_issue(...):
// the part before the first dot names a namespace object, installed only
// where that global is free. The host decides each tool's JS name and
// namespace (gocore/toolcat; prelude.js, namesOf): a member is the rest of
// the name after the namespace and its dot, its identifier form the same
// slice of the JS name, which keeps the name's length. `tools` lets a
// script find tools without a long prompt: tools.search(words),
// tools.describe(name), tools.list(); the host searches (tools_search).
    // namespaces installs a namespace global for the run's dotted tools:
    // one pass groups the tools by namespace; each namespace object (its
    // members, one stub per tool) is built only when a script first reads
    // it, so a run pays little for many tools it does not call that way.
    function namespaces(infos, target) {
      const groups = new MapCtor();
      for (const info of infos) {
        const ns = namesOf.get(info).ns;
        if (ns === '') continue;
        let members = groups.get(ns);
        if (members === undefined) groups.set(ns, (members = []));
        members.push(info);
      }
      for (const [ns, members] of groups) {
        // A builtin, a prelude global or a tool owns the name: no namespace.
        if (Object.getOwnPropertyDescriptor(G, ns) !== undefined || ns in G) continue;
        for (const info of members) info.ns = ns;
        ObjectDefineProperty(target, ns, {
          configurable: true,
          enumerable: true,
          get() {
            const obj = namespaceObject(members);
            ObjectDefineProperty(target, ns, { value: obj, writable: true, configurable: true, enumerable: true });
            return obj;
          },
          set(v) {
            ObjectDefineProperty(G, ns, { value: v, writable: true, configurable: true, enumerable: true });
          },
        });
      }
    }

    // namespaceObject makes the object of one namespace: each tool under its
    // name after the dot and under that name's identifier form. Members are
    // defined, not assigned: one named __proto__ must be a member, not the
    // object's prototype.
    function namespaceObject(members) {
      const obj = {};
      const hasOwn = Object.prototype.hasOwnProperty;
      for (const info of members) {
        const names = namesOf.get(info);
        const member = info.name.slice(names.ns.length + 1);
        const id = names.js.slice(names.ns.length + 1);
        const method = info.id;
        const stub = named(id, function (params) { return callMethod(method, params); });
        for (const key of id === member ? [member] : [member, id]) {
          if (!hasOwn.call(obj, key)) {
            ObjectDefineProperty(obj, key, { value: stub, writable: true, configurable: true, enumerable: true });
          }
        }
      }
      return obj;
    }

    // lazyNamespace is a namespace object, as namespaceObject makes, of
    // the raw index entries of its tools (prelude.js, resolveGlobal): a
    // member is made when a script first reads it, all of them when it
    // lists the object's keys. The member under a key is that of the first
    // tool whose name after the dot, or its identifier form, is the key.
    // Every entry's name has its first dot at start - 1.
    function lazyNamespace(entries, start) {
      const obj = {};
      const hasOwn = Object.prototype.hasOwnProperty;
      const stubs = new MapCtor(); // entry -> its stub, one per tool
      const gone = new SetCtor(); // keys a script deleted
      let complete = false;
      function stubOf(t) {
        let stub = stubs.get(t);
        if (stub === undefined) {
          const method = typeof t.method === 'string' && t.method ? t.method : 'mcp:' + t.name;
          stub = named(t.js.slice(start), function (params) { return callMethod(method, params); });
          stubs.set(t, stub);
        }
        return stub;
      }
      function put(key, t) {
        ObjectDefineProperty(obj, key, { value: stubOf(t), writable: true, configurable: true, enumerable: true });
      }
      function fill(key) {
        if (complete || typeof key !== 'string' || hasOwn.call(obj, key) || gone.has(key)) return;
        const n = start + key.length;
        for (let i = 0; i < entries.length; i++) {
          const t = entries[i];
          if (t.name.length !== n) continue;
          if (t.name.startsWith(key, start) || t.js.startsWith(key, start)) {
            put(key, t);
            return;
          }
        }
        gone.add(key);
      }
      function fillAll() {
        if (complete) return;
        complete = true;
        for (const t of entries) {
          const member = t.name.slice(start);
          const id = t.js.slice(start);
          for (const key of id === member ? [member] : [member, id]) {
            if (!hasOwn.call(obj, key) && !gone.has(key)) put(key, t);
          }
        }
      }
      return new ProxyCtor(obj, {
        get(target, key, receiver) { fill(key); return ReflectObj.get(target, key, receiver); },
        set(target, key, value, receiver) { fill(key); return ReflectObj.set(target, key, value, receiver); },
        has(target, key) { fill(key); return ReflectObj.has(target, key); },
        getOwnPropertyDescriptor(target, key) { fill(key); return ReflectObj.getOwnPropertyDescriptor(target, key); },
        defineProperty(target, key, desc) { fill(key); return ReflectObj.defineProperty(target, key, desc); },
        deleteProperty(target, key) {
          fill(key);
          if (typeof key === 'string') gone.add(key);
          return ReflectObj.deleteProperty(target, key);
        },
        ownKeys(target) { fillAll(); return ReflectObj.ownKeys(target); },
      });
    }

    // callOf is how a script calls a tool: through its namespace when it
    // has one, else by its registered name (callTool / tools.call).
    function callOf(info) {
      if (info.ns === undefined) return info.name;
      const names = namesOf.get(info);
      const member = info.name.slice(names.ns.length + 1);
      return info.ns + (names.js.slice(names.ns.length + 1) === member ? '.' + member : '[' + JSONStringify(member) + ']');
    }

    // found is the host's search for text (wire.MethodToolSearch, ranked
    // by gocore/toolcat; '' finds every tool, in their order): a promise of
    // [{name, description, call}], at most limit of them, the description
    // its first line.
    function found(text, limit) {
      return callMethod('tools_search', { query: text }).then((hits) => {
        const out = [];
        for (const h of ArrayIsArray(hits) ? hits.slice(0, limit) : []) {
          const info = toolsByName.get(h.name);
          if (info !== undefined) out.push({ name: info.name, description: h.description, call: callOf(info) });
        }
        return out;
      });
    }
    // nameText is a tool name as text for lookups and messages; a value
    // that has none (a Symbol, an object whose toString throws) is null.
    function nameText(name) {
      try { return String(name); } catch (e) { return null; }
    }
    function unknown(name) {
      const n = nameText(name);
      const shown = n === null ? 'a ' + typeof name + ' (tool names are strings)' : n;
      return PromiseReject(new ErrorCtor('Unknown tool: ' + shown + ' (tools.search() finds tools)'));
    }
    function lookup(name) {
      const n = nameText(name);
      if (n === null) return undefined;
      for (const info of toolsByName.values()) {
        if (info.name === n || info.id === n || callOf(info) === n) return info;
      }
      return findTool(n, true);
    }

    // declarationOf is a tool's declaration: the host's (prelude.js,
    // declarationText), else, for a tool it has none of, its call,
    // description and input schema as comments.
    function declarationOf(info) {
      const declared = declarationText(info);
      if (declared) return declared;
      const lines = ['// ' + callOf(info) + '(input)'];
      for (const l of String(info.description || '').split('\n')) lines.push('// ' + l);
      lines.push('// input (JSON Schema): ' + JSONStringify(info.parameters));
      return lines.join('\n') + '\n';
    }

    const tools = {
      // search(query, {limit}) → [{name, description, call}], best first:
      // the host ranks the tools (wire.MethodToolSearch, gocore/toolcat).
      search: named('search', function (query, options) {
        const text = nameText(query ?? '');
        if (text === null) return PromiseReject(new ErrorCtor('tools.search takes words as a string'));
        let limit = 20;
        if (options && typeof options.limit === 'number' && options.limit > 0) limit = options.limit;
        return found(text, limit);
      }),
      // describe(name) → the tool's TypeScript declaration (its input and
      // output types, its documentation), as the host rendered it.
      describe: named('describe', function (name) {
        const info = fullInfo(lookup(name));
        if (!info) return unknown(name);
        return PromiseResolve(declarationOf(info));
      }),
      // list() → [{name, description, call}] of every tool.
      list: named('list', function () { return found('', Infinity); }),
      // call(name, params): the same as the tool's function.
      call: named('call', function (name, params) {
        const info = lookup(name);
        if (!info) return unknown(name);
        return callMethod(info.id, params);
      }),
    };
    return { namespaces, lazyNamespace, tools };
