/*
 * modules.c: what `import('fs')` loads. Scripts are not modules (an
 * import statement is a syntax error the prelude explains), but the
 * dynamic import() expression compiles in any script, and QuickJS asks the
 * runtime's module loader for the name. The loader answers with a
 * synthetic module for each built-in module require() serves: its default
 * export is the module object and every property of that object is a named
 * export, as Node gives for its built-in modules. Any other name rejects
 * with require()'s MODULE_NOT_FOUND error.
 *
 * The module objects come from the prelude's importModule(name) helper
 * (prelude.js), which is require() without a tool shadowing it. The
 * loader holds no state of its own: QuickJS keeps the loaded modules.
 */
#include <string.h>

#include "amla.h"

static JSValue (*import_module)(JSContext *ctx, const char *name);

/* own_keys lists the own enumerable string keys of obj; -1 on failure. */
static int own_keys(JSContext *ctx, JSValueConst obj, JSPropertyEnum **tab, uint32_t *len)
{
    return JS_GetOwnPropertyNames(ctx, tab, len, obj, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY);
}

/* init_module fills in the exports the loader declared. */
static int init_module(JSContext *ctx, JSModuleDef *m)
{
    JSAtom atom = JS_GetModuleName(ctx, m);
    const char *name = JS_AtomToCString(ctx, atom);
    JS_FreeAtom(ctx, atom);
    if (!name)
        return -1;
    JSValue obj = import_module(ctx, name);
    JS_FreeCString(ctx, name);
    if (JS_IsException(obj))
        return -1;
    JSPropertyEnum *tab;
    uint32_t len;
    if (own_keys(ctx, obj, &tab, &len) < 0) {
        JS_FreeValue(ctx, obj);
        return -1;
    }
    int ret = 0;
    for (uint32_t i = 0; i < len && ret == 0; i++) {
        const char *key = JS_AtomToCString(ctx, tab[i].atom);
        if (!key) {
            ret = -1;
            break;
        }
        if (strcmp(key, "default") != 0) {
            /* JS_SetModuleExport takes over v. */
            JSValue v = JS_GetProperty(ctx, obj, tab[i].atom);
            if (JS_IsException(v) || JS_SetModuleExport(ctx, m, key, v) < 0)
                ret = -1;
        }
        JS_FreeCString(ctx, key);
    }
    JS_FreePropertyEnum(ctx, tab, len);
    if (ret != 0) {
        JS_FreeValue(ctx, obj);
        return -1;
    }
    return JS_SetModuleExport(ctx, m, "default", obj) < 0 ? -1 : 0;
}

/* load_module declares a synthetic module's exports; NULL with the
 * MODULE_NOT_FOUND error pending for a name that is not built in. */
static JSModuleDef *load_module(JSContext *ctx, const char *name, void *opaque)
{
    JSValue obj = import_module(ctx, name);
    if (JS_IsException(obj))
        return NULL;
    JSModuleDef *m = JS_NewCModule(ctx, name, init_module);
    JSPropertyEnum *tab = NULL;
    uint32_t len = 0;
    int ok = m && own_keys(ctx, obj, &tab, &len) == 0 && JS_AddModuleExport(ctx, m, "default") == 0;
    for (uint32_t i = 0; ok && i < len; i++) {
        const char *key = JS_AtomToCString(ctx, tab[i].atom);
        ok = key && strcmp(key, "default") != 0 ? JS_AddModuleExport(ctx, m, key) == 0 : key != NULL;
        JS_FreeCString(ctx, key);
    }
    if (tab)
        JS_FreePropertyEnum(ctx, tab, len);
    JS_FreeValue(ctx, obj);
    return ok ? m : NULL;
}

void amla_install_module_loader(JSRuntime *rt, JSValue (*import)(JSContext *ctx, const char *name))
{
    import_module = import;
    JS_SetModuleLoaderFunc(rt, NULL, load_module, NULL);
}
