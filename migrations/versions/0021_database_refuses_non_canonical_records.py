"""ledger: PostgreSQL refuses a record that is not canonical JSON

Revision ID: 0021
Revises: 0018
Create Date: 2026-12-04 18:40:00

The chain trigger of 0010 hashes the record's text and compares its fields with the
row's, but accepted any spelling of those fields: `{"seq": 5, ...}` with a space, keys
out of order, `\\u00e9` for `é`, a key twice, `1.50`. `history verify` and `import` apply
the record rule (campaign.ledger_scan.record_text_problem: the text is exactly
canonical_json of its own value) and refuse such a row, so one of them, once in, failed
verification for ever and blocked every import and every later proof.

A second BEFORE INSERT trigger (ledger_record_canonical, after ledger_chain_holds by
name) applies the same rule in the database: it spells the record again, canonically,
from its parsed tokens (the `json` type keeps every key, repeated ones too, and every
number as written), and refuses the row unless that spelling is the stored text:

* objects: keys sorted by code point (COLLATE "C" on UTF-8 bytes), no key twice;
* strings: what json.dumps(ensure_ascii=False) writes (to_json escapes the same set:
  `\\"`, `\\\\`, \\b \\f \\n \\r \\t and other control characters as `\\u00xx`);
* integers as their digits (`-0` reads as 0), other numbers as Python's repr of the
  nearest double (`1.5`, `1e-05`, `1e+16`, `100.0`);
* no whitespace, nesting at most JSON_DEPTH levels (campaign.read_limits).

Rows already stored are not touched (the ledger is append-only); SQLite's file owner
can write anything, so there `history verify` stays the check.
"""
from alembic import op


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

JSON_DEPTH = 64  # campaign.read_limits.JSON_DEPTH: a migration keeps the value it was written with
REFUSED = "USING ERRCODE = 'insufficient_privilege'"


def _functions(schema: str) -> list[str]:
    s = schema
    return [
        # Python's repr of a double, from PostgreSQL's shortest round-trip digits.
        f"""CREATE OR REPLACE FUNCTION ledger_python_float(x float8) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT
           SET extra_float_digits = 1 AS $$
           DECLARE
             t text := x::text;
             sign text := '';
             mantissa text;
             digits text;
             e integer := 0;
             n integer;
           BEGIN
             IF t IN ('Infinity', '-Infinity', 'NaN') THEN
               RETURN t;
             END IF;
             IF left(t, 1) = '-' THEN
               sign := '-'; t := substr(t, 2);
             END IF;
             mantissa := split_part(t, 'e', 1);
             IF position('e' IN t) > 0 THEN
               e := split_part(t, 'e', 2)::integer;
             END IF;
             digits := split_part(mantissa, '.', 1) || split_part(mantissa, '.', 2);
             e := e + length(split_part(mantissa, '.', 1)) - 1;
             WHILE left(digits, 1) = '0' LOOP
               digits := substr(digits, 2); e := e - 1;
             END LOOP;
             digits := rtrim(digits, '0');
             IF digits = '' THEN
               RETURN sign || '0.0';
             END IF;
             n := length(digits);
             IF e < -4 OR e >= 16 THEN
               RETURN sign || left(digits, 1) || CASE WHEN n > 1 THEN '.' || substr(digits, 2) ELSE '' END
                 || 'e' || CASE WHEN e < 0 THEN '-' ELSE '+' END || lpad(abs(e)::text, 2, '0');
             ELSIF e >= n - 1 THEN
               RETURN sign || digits || repeat('0', e - n + 1) || '.0';
             ELSIF e >= 0 THEN
               RETURN sign || left(digits, e + 1) || '.' || substr(digits, e + 2);
             END IF;
             RETURN sign || '0.' || repeat('0', -e - 1) || digits;
           END $$""",
        # The canonical spelling of a parsed JSON value (campaign.chain.canonical_json).
        f"""CREATE OR REPLACE FUNCTION ledger_canonical_json(value json, depth integer) RETURNS text
           LANGUAGE plpgsql IMMUTABLE STRICT AS $$
           DECLARE
             kind text := json_typeof(value);
             token text;
             pairs integer;
             distinct_keys integer;
           BEGIN
             IF kind IN ('object', 'array') AND depth > {JSON_DEPTH} THEN
               RAISE EXCEPTION 'ledger chain: the record nests JSON more than {JSON_DEPTH} levels deep' {REFUSED};
             END IF;
             IF kind = 'object' THEN
               SELECT count(*), count(DISTINCT key),
                      coalesce(string_agg(to_json(key)::text || ':' || {s}.ledger_canonical_json(item, depth + 1), ','
                                          ORDER BY key COLLATE "C"), '')
                 INTO pairs, distinct_keys, token FROM json_each(value) AS pair(key, item);
               IF pairs <> distinct_keys THEN
                 RAISE EXCEPTION 'ledger chain: the record has a key twice in one object' {REFUSED};
               END IF;
               RETURN '{{' || token || '}}';
             ELSIF kind = 'array' THEN
               SELECT coalesce(string_agg({s}.ledger_canonical_json(item, depth + 1), ',' ORDER BY n), '')
                 INTO token FROM json_array_elements(value) WITH ORDINALITY AS element(item, n);
               RETURN '[' || token || ']';
             ELSIF kind = 'string' THEN
               RETURN to_json(value #>> '{{}}')::text;
             ELSIF kind = 'number' THEN
               token := btrim(value::text, E' \\t\\n\\r');
               IF token ~ '^-?[0-9]+$' THEN
                 RETURN token::numeric::text;
               END IF;
               RETURN {s}.ledger_python_float(token::float8);
             END IF;
             IF kind = 'null' THEN
               RETURN 'null';
             END IF;
             RETURN value #>> '{{}}';  -- true or false
           END $$""",
        f"""CREATE OR REPLACE FUNCTION ledger_check_canonical() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
           SET search_path = {s}, pg_temp AS $$
           BEGIN
             IF NEW.record IS DISTINCT FROM {s}.ledger_canonical_json(NEW.record::json, 1) THEN
               RAISE EXCEPTION 'ledger chain: entry %: the record is not in canonical JSON (sorted keys, no spaces, UTF-8)',
                 NEW.seq {REFUSED};
             END IF;
             RETURN NEW;
           END $$""",
    ]


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    schema = bind.exec_driver_sql("SELECT quote_ident(current_schema())").scalar()
    for statement in _functions(schema):
        op.execute(statement)
    op.execute("""CREATE TRIGGER ledger_record_canonical BEFORE INSERT ON ledger
                  FOR EACH ROW EXECUTE FUNCTION ledger_check_canonical()""")
    # ALWAYS: it fires even under session_replication_role = replica (a superuser's bulk load)
    op.execute("ALTER TABLE ledger ENABLE ALWAYS TRIGGER ledger_record_canonical")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS ledger_record_canonical ON ledger")
    op.execute("DROP FUNCTION IF EXISTS ledger_check_canonical()")
    op.execute("DROP FUNCTION IF EXISTS ledger_canonical_json(json, integer)")
    op.execute("DROP FUNCTION IF EXISTS ledger_python_float(float8)")
