#!/usr/bin/env python3
"""check_sbom.py - a bundle's printed SBOMs against the official JSON schemas (tests/data/sbom,
python3-jsonschema) and against the bundle's own signed manifest.

usage: check_sbom.py SCHEMA_DIR HEADER_JSON CDX_JSON SPDX_JSON PURL FINGERPRINT...

HEADER_JSON is the signed manifest (bundler inspect --export DIR writes DIR/header.json);
PURL the product's expected package URL; each FINGERPRINT a signer the print must name."""
import hashlib
import json
import sys
import uuid

import jsonschema

DOSSIER = ".cuferry-dossier/"


def validator(schema_dir, main, others):
    """A Draft 7 validator of main whose $refs resolve to the fixed files only (no network)."""
    schema = json.load(open(f"{schema_dir}/{main}"))
    store = {}
    for name in others:
        s = json.load(open(f"{schema_dir}/{name}"))
        store[s["$id"]] = s
    jsonschema.Draft7Validator.check_schema(schema)
    try:  # jsonschema >= 4.18 (pip): the referencing registry
        import referencing
        import referencing.jsonschema
        resources = [(i, referencing.Resource.from_contents(s, referencing.jsonschema.DRAFT7))
                     for i, s in store.items()]
        registry = referencing.Registry().with_resources(resources)
        return jsonschema.Draft7Validator(schema, registry=registry,
                                          format_checker=jsonschema.FormatChecker())
    except ImportError:  # Debian 12's 4.10: RefResolver with a store
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft7Validator(schema, resolver=resolver,
                                          format_checker=jsonschema.FormatChecker())


def content_digest(manifest):
    """What docs/formats.md says the identifiers come from: the sha256sum lines of the files."""
    lines = []
    for f in manifest["files"]:
        if f["path"].startswith(DOSSIER):
            continue
        if f["type"] == "file":
            lines.append(f"{f['sha256']}  {f['path']}\n")
        else:
            lines.append(f"{f['path']} -> {f['target']}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def check(schema_dir, header, cdx_path, spdx_path, purl, fingerprints):
    m = json.load(open(header))
    cdx, spdx = json.load(open(cdx_path)), json.load(open(spdx_path))
    check_cdx = validator(schema_dir, "bom-1.6.schema.json",
                          ["spdx.schema.json", "jsf-0.82.schema.json"])
    check_spdx = validator(schema_dir, "spdx-schema.json", [])
    errors = sorted(check_cdx.iter_errors(cdx), key=str)
    assert not errors, "CycloneDX: " + "\n".join(e.message for e in errors[:5])
    errors = sorted(check_spdx.iter_errors(spdx), key=str)
    assert not errors, "SPDX: " + "\n".join(e.message for e in errors[:5])
    # The validators do refuse: a licence id outside SPDX's list (through the referenced
    # spdx.schema.json), an unknown hash algorithm, an SPDX file without checksums.
    bad = json.loads(json.dumps(cdx))
    bad["components"][0]["licenses"] = [{"license": {"id": "no-such-licence"}}]
    assert not check_cdx.is_valid(bad), "CycloneDX validator took a bad licence id"
    bad = json.loads(json.dumps(cdx))
    bad["components"][0]["components"][0]["hashes"][0]["alg"] = "SHA-257"
    assert not check_cdx.is_valid(bad), "CycloneDX validator took a bad hash algorithm"
    bad = json.loads(json.dumps(spdx))
    del bad["files"][0]["checksums"]
    assert not check_spdx.is_valid(bad), "SPDX validator took a file without checksums"

    files = {f["path"]: f for f in m["files"] if f["type"] == "file"
             and not f["path"].startswith(DOSSIER)}
    digest = content_digest(m)
    want_uuid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"cuferry:sbom:{m['bundle_id']}:{digest}"))

    # CycloneDX: identity from the content, every file with its signed SHA-256, the signers.
    assert cdx["serialNumber"] == "urn:uuid:" + want_uuid, cdx["serialNumber"]
    bundle = cdx["metadata"]["component"]
    props = [(p["name"], p["value"]) for p in bundle["properties"]]
    assert ("cuferry:content-sha256", digest) in props, props
    assert ("cuferry:format", m["format"]) in props, props
    assert bundle["name"] == m["bundle_id"], bundle
    signers = [v for n, v in props if n == "cuferry:signer"]
    assert signers == list(fingerprints), (signers, fingerprints)
    product = cdx["components"][0]
    assert product["purl"] == purl, product["purl"]
    assert product["supplier"]["name"] == "NVIDIA Corporation", product
    seen = {}
    for comp in cdx["components"]:
        for f in comp.get("components", []):
            sha = {h["alg"]: h["content"] for h in f["hashes"]}
            seen[f["name"]] = sha["SHA-256"]
            assert f["purl"].split("#")[0] == comp["purl"], (f["purl"], comp["purl"])
    assert seen == {p: f["sha256"] for p, f in files.items()}, "CycloneDX files differ from the manifest"

    # SPDX: the same identity and files; every relationship names an element of the document.
    assert spdx["documentNamespace"].endswith("/" + want_uuid), spdx["documentNamespace"]
    ids = {"SPDXRef-DOCUMENT"} | {p["SPDXID"] for p in spdx["packages"]} | \
        {f["SPDXID"] for f in spdx["files"]}
    assert len(ids) == 1 + len(spdx["packages"]) + len(spdx["files"]), "SPDXIDs not unique"
    for r in spdx["relationships"]:
        assert r["spdxElementId"] in ids and r["relatedSpdxElement"] in ids, r
    refs = {x["licenseId"] for x in spdx.get("hasExtractedLicensingInfos", [])}
    for p in spdx["packages"]:
        lic = p["licenseDeclared"]
        assert lic == "NOASSERTION" or lic in refs, (lic, refs)
    sha = {f["fileName"][2:]: {c["algorithm"]: c["checksumValue"] for c in f["checksums"]}
           for f in spdx["files"]}
    assert {p: c["SHA256"] for p, c in sha.items()} == {p: f["sha256"] for p, f in files.items()}
    assert all(len(c["SHA1"]) == 40 for c in sha.values())
    pkg = next(p for p in spdx["packages"] if p["SPDXID"] == "SPDXRef-Bundle")
    notes = [a["comment"] for a in pkg.get("annotations", [])]
    assert len(notes) == len(fingerprints) and all(fp in n for fp, n in zip(fingerprints, notes)), notes
    purls = [r["referenceLocator"] for p in spdx["packages"] for r in p.get("externalRefs", [])]
    assert purl in purls, purls
    print(f"SBOMs valid: {len(files)} files, serial {want_uuid}")


if __name__ == "__main__":
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    check(*sys.argv[1:6], sys.argv[6:])
