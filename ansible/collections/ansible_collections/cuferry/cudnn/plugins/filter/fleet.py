# The fleet report's judgements, in one place: from a host's install result (the unpacker's
# --json report, as the cudnn role keeps it in cudnn_result) and its `unpacker inventory
# --json -` report (cudnn_inventory), what the report says about that host; and, over every
# host's row, the lists the report leads with. Python rather than Jinja because the rules
# (which install is the target's, what counts as drift) must read the same in the JSON, the
# table and the Markdown, and be testable on their own.
from __future__ import annotations


def _target(result):
    """The bundle the play gave this host, as the unpacker's report names it (or None)."""
    if not result.get('bundle_id'):
        return None
    return {k: result.get(k) for k in ('bundle_id', 'counter', 'dir', 'prefix', 'cuda_variant')} | {
        'version': _version(result)}


def _version(rec):
    """`<product>_version` of an install or report (cudnn_version, nccl_version, ...)."""
    for k, v in sorted(rec.items()):
        if k.endswith('_version') and k != 'driver_version' and isinstance(v, str):
            return v
    return None


def _problem_for(problems, name):
    """The inventory's own line for NAME (an install's directory, a file), if it has one."""
    for p in problems:
        if p.startswith(name + ':') or p.startswith(name + ' '):
            return p
    return None


def _files_reason(install, problems):
    f = install.get('files')
    d = install.get('dir', '?')
    if f is None:
        return _problem_for(problems, d) or (d + ': its files were not checked (no manifest is believed)')
    counts = [(k, f.get(k) or 0) for k in
              ('missing', 'size_changed', 'sha256_changed', 'links_changed', 'unlisted')]
    changed = [(k, n) for k, n in counts if n]
    if not changed:
        return None
    first = f.get('first_problem') or f.get('first_unlisted')
    return '%s: files changed (%s)%s' % (d, ', '.join('%s %d' % (k.replace('_', ' '), n) for k, n in changed),
                                         (': ' + first) if first else '')


def _validation(install):
    v = install.get('validation') if install else None
    if not v:
        return None
    return {'result': v.get('result'), 'validated_at': v.get('validated_at'), 'gpu': v.get('gpu'),
            'gpus': [g.get('name') for g in v.get('gpus') or []], 'first_failure': v.get('first_failure')}


def fleet_host_state(result, inventory):
    """One host's state for the fleet report (see the collection's README for the fields)."""
    result = result or {}
    rep = inventory or {}
    inv = rep.get('inventory')
    if not isinstance(inv, dict):
        why = rep.get('message') or result.get('message') or 'no inventory'
        return {'inventoried': False, 'summary': 'not inventoried: ' + str(result.get('status') or 'no result'),
                'reason': why, 'products': [], 'current': None, 'target': _target(result), 'on_target': None,
                'last_validation': None, 'drift': [], 'shadowing': []}
    problems = inv.get('problems') or []
    root = inv.get('root') or ''
    target = _target(result)
    prefixes = inv.get('prefixes') or []
    # The target's prefix: the one the install went to (the report's prefix includes --root).
    tp = None
    if target:
        tp = next((p for p in prefixes if root + p.get('prefix', '') == target['prefix']), None)
    tp = tp or next((p for p in prefixes if p.get('current')), None) or (prefixes[0] if prefixes else None)
    products, drift, shadowing = [], [], []
    for p in prefixes:
        installs = p.get('installs') or []
        cur = next((b for b in installs if b.get('current')), None)
        products.append({'product': p.get('product'), 'prefix': p.get('prefix'), 'current': p.get('current'),
                         'current_version': _version(cur) if cur else None,
                         'versions': [_version(b) for b in installs], 'installs': len(installs)})
        for b in installs:
            r = _files_reason(b, problems)
            if r:
                drift.append(r)
            elif b.get('signature', {}).get('verifies') is False:
                drift.append(_problem_for(problems, b.get('dir', '?')) or b['dir'] + ': its stored header no longer verifies')
            if (b.get('validation') or {}).get('result') == 'unreadable':
                drift.append('%s: its validation record is unreadable' % b.get('dir'))
        for e in p.get('environment') or []:
            if not e.get('ok', True):
                drift.append(_problem_for(problems, e.get('file', '?'))
                             or '%s: does not point at %s/current' % (e.get('file'), p.get('prefix')))
        for m in p.get('modulefiles') or []:
            if not m.get('default_is_current', True):
                drift.append('modulefiles in %s: the default is not the current install' % m.get('dir'))
        for c in p.get('copies') or []:
            if c.get('shadows'):
                shadowing.append({k: c.get(k) for k in ('path', 'version', 'origin', 'on_search_path')})
    current = tp.get('current') if tp else None
    on_target = None
    if target:
        cur = next((b for b in (tp or {}).get('installs') or [] if b.get('current')), None)
        on_target = bool(cur) and cur.get('dir') == target['dir'] and cur.get('bundle_id') == target['bundle_id'] \
            and cur.get('counter') == target['counter']
        if not on_target:
            drift.append('current is %s, the play\'s target is %s (counter %s)' % (
                '%s (counter %s)' % (cur['dir'], cur.get('counter')) if cur else 'none', target['dir'], target['counter']))
    if inv.get('drifted') and not drift and not shadowing:
        drift.append('inventory: ' + str(rep.get('message') or (problems[0] if problems else 'drifted')))
    cur_install = next((b for b in (tp or {}).get('installs') or [] if b.get('current')), None)
    summary = ', '.join(([] if not drift else ['drift']) + ([] if not shadowing else ['shadowed'])) or 'clean'
    return {'inventoried': True, 'summary': summary, 'reason': None,
            'products': products, 'current': current, 'target': target, 'on_target': on_target,
            'last_validation': _validation(cur_install), 'drift': drift, 'shadowing': shadowing}


def fleet_overview(rows):
    """The report's lists over every host's row (each with host and state)."""
    rows = rows or []
    st = [(r.get('host'), r.get('state') or {}) for r in rows]
    return {
        'hosts_inventoried': [h for h, s in st if s.get('inventoried')],
        'hosts_not_inventoried': [{'host': h, 'status': r.get('status') or 'no result', 'reason': s.get('reason')}
                                  for r, (h, s) in zip(rows, st) if not s.get('inventoried')],
        'hosts_clean': [h for h, s in st if s.get('summary') == 'clean'],
        'drift': [{'host': h, 'reasons': s['drift']} for h, s in st if s.get('drift')],
        'shadowing': [{'host': h, 'copies': s['shadowing']} for h, s in st if s.get('shadowing')],
    }


def plain(value):
    """VALUE as one line of text for a terminal or a text file: what a host reported is a
    compromised target's words, so every control character (C0, DEL, C1: ESC, BEL, CSI...) is
    written as \\xNN and line breaks become spaces; nothing it sends can move the cursor, set a
    title or forge a line."""
    s = '' if value is None else str(value)
    out = []
    for ch in s.replace('\r\n', ' ').replace('\n', ' ').replace('\r', ' '):
        o = ord(ch)
        out.append('\\x%02x' % o if o < 0x20 or 0x7f <= o <= 0x9f else ch)
    return ''.join(out)


# What Markdown (CommonMark and GitHub's) would read as markup in a cell, escaped with a
# backslash: no link or image ([...](...)), code span, strong text or strikethrough (which
# could hide a word), no cell break. Line breaks are gone (plain), so no heading or list can
# start; '_' between letters (host_names) is no emphasis and stays as it is.
MD_SPECIAL = '\\`*[]~|'


def md_cell(value):
    """VALUE as one Markdown table cell or list item: plain() first, then '&' '<' '>' as HTML
    entities (no raw HTML, no autolink) and every Markdown special character escaped."""
    s = plain(value).replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    return ''.join('\\' + ch if ch in MD_SPECIAL else ch for ch in s)


class FilterModule:
    def filters(self):
        return {'fleet_host_state': fleet_host_state, 'fleet_overview': fleet_overview, 'md_cell': md_cell,
                'plain': plain}
