// kernel/config/config_toml.cc — the toml++ adapter: TOML text in, the C tree
// of config_tree.h out. The only C++ in the kernel.
//
// Contract
// --------
// insee_cfg_parse_toml() parses a whole document and copies it into
// insee_cfg_node objects, keeping each key's and each value's line:col, so
// the C side never touches toml++ and every later error can name a position.
// Table entries are emitted in document order (toml++ keeps tables sorted by
// key), so "the first problem" is the first one in the file. On a syntax
// error it returns NULL with toml++'s description and position. Parse errors
// never cross into C as exceptions, whether toml++ was built with exceptions
// (toml::parse throws toml::parse_error) or without (it returns a
// toml::parse_result holding the error). A string or key holding a NUL
// character is refused like a syntax error, at its position. Running out of memory aborts, as it
// does everywhere GLib allocates.

#include "config_tree.h"

#include <toml++/toml.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace {

class converter {
  public:
    converter(const char *origin, bool positions) : origin_(origin), positions_(positions) {}

    insee_cfg_node *convert(const toml::node &n) const
    {
        switch (n.type()) {
        case toml::node_type::table:
            return table(*n.as_table());
        case toml::node_type::array: {
            insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_ARRAY, pos(n.source()));
            for (const toml::node &item : *n.as_array())
                g_ptr_array_add(out->items, convert(item));
            return out;
        }
        case toml::node_type::string: {
            insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_STRING, pos(n.source()));
            const std::string &s = n.as_string()->get();
            note_nul(s, n.source(), "a string");
            out->s = g_strndup(s.data(), s.size());
            return out;
        }
        case toml::node_type::integer: {
            insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_INT, pos(n.source()));
            out->i = n.as_integer()->get();
            return out;
        }
        case toml::node_type::floating_point: {
            insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_FLOAT, pos(n.source()));
            out->d = n.as_floating_point()->get();
            return out;
        }
        case toml::node_type::boolean: {
            insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_BOOL, pos(n.source()));
            out->b = n.as_boolean()->get() ? TRUE : FALSE;
            return out;
        }
        default: // date, time, date_time (the parser never yields `none`)
            return insee_cfg_node_new(INSEE_CFG_DATETIME, pos(n.source()));
        }
    }

    // The first string or key holding a NUL character ("\u0000"): C
    // strings end there, so the rest would be dropped without a word.
    bool has_nul() const { return nul_found_; }
    const toml::source_region &nul_where() const { return nul_where_; }
    const char *nul_what() const { return nul_what_; }

  private:
    void note_nul(std::string_view s, const toml::source_region &where, const char *what) const
    {
        if (nul_found_ || s.find('\0') == std::string_view::npos)
            return;
        nul_found_ = true;
        nul_where_ = where;
        nul_what_ = what;
    }

    insee_cfg_pos pos(const toml::source_region &r) const
    {
        if (!positions_)
            return insee_cfg_pos{origin_, 0, 0};
        return insee_cfg_pos{origin_, r.begin.line, r.begin.column};
    }

    insee_cfg_node *table(const toml::table &t) const
    {
        using entry = std::pair<const toml::key *, const toml::node *>;
        std::vector<entry> entries;
        for (auto &&[key, value] : t)
            entries.emplace_back(&key, &value);
        std::stable_sort(entries.begin(), entries.end(), [](const entry &a, const entry &b) {
            const toml::source_position &pa = a.first->source().begin, &pb = b.first->source().begin;
            return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
        });
        insee_cfg_node *out = insee_cfg_node_new(INSEE_CFG_TABLE, pos(t.source()));
        for (const entry &e : entries) {
            std::string_view key = e.first->str();
            note_nul(key, e.first->source(), "a key");
            insee_cfg_table_append(out, key.data(), key.size(), pos(e.first->source()), convert(*e.second));
        }
        return out;
    }

    const char *origin_;
    bool positions_;
    mutable bool nul_found_ = false;
    mutable toml::source_region nul_where_{};
    mutable const char *nul_what_ = nullptr;
};

// The converted document, or NULL (tree freed) when it holds a NUL.
insee_cfg_node *finish(const converter &conv, insee_cfg_node *root, insee_cfg_parse_error *err)
{
    if (!conv.has_nul())
        return root;
    insee_cfg_node_free(root);
    err->description = g_strdup_printf("%s holds a NUL character (\\u0000), which no name or "
                                       "path may contain; remove it",
                                       conv.nul_what());
    err->line = conv.nul_where().begin.line;
    err->col = conv.nul_where().begin.column;
    return nullptr;
}

insee_cfg_node *fail(const toml::parse_error &e, insee_cfg_parse_error *err)
{
    std::string_view what = e.description();
    err->description = g_strndup(what.data(), what.size());
    err->line = e.source().begin.line;
    err->col = e.source().begin.column;
    return nullptr;
}

} // namespace

insee_cfg_node *insee_cfg_parse_toml(const char *text, size_t len, const char *origin, gboolean positions,
                                     insee_cfg_parse_error *err)
{
    const converter conv(origin, positions != FALSE);
    const std::string_view doc(text, len);
#if TOML_EXCEPTIONS
    try {
        const toml::table root = toml::parse(doc);
        return finish(conv, conv.convert(root), err);
    } catch (const toml::parse_error &e) {
        return fail(e, err);
    }
#else
    const toml::parse_result result = toml::parse(doc);
    if (!result)
        return fail(result.error(), err);
    return finish(conv, conv.convert(result.table()), err);
#endif
}
