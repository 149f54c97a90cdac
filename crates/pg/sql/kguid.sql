-- The kguid extension: the guid (12 bytes) and luid (8 bytes) types of the
-- kguid library, their operators and index support, casts, and the server's
-- one clock. Every function is in the extension's library (MODULE_PATHNAME).

-- The types: guid by reference (12 bytes, no alignment, no padding on disk),
-- luid by value (8 bytes, as int8).
CREATE TYPE guid;
CREATE TYPE luid;

CREATE FUNCTION guid_in(cstring) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_out(guid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'kguid_guid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_recv(internal) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_send(guid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'kguid_guid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_in(cstring) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_out(luid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'kguid_luid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_recv(internal) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_send(luid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'kguid_luid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE guid (
    INPUT = guid_in, OUTPUT = guid_out, RECEIVE = guid_recv, SEND = guid_send,
    INTERNALLENGTH = 12, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE guid IS 'a 96-bit k-ordered global id (drift, time, node, sequence), as the kguid library and fogfish/guid v2 make it';
CREATE TYPE luid (
    INPUT = luid_in, OUTPUT = luid_out, RECEIVE = luid_recv, SEND = luid_send,
    INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE luid IS 'a 64-bit k-ordered local id (a guid without its node)';

-- Comparison, in the library's id order (the order of the big-endian bytes),
-- and hashing, for btree and hash indexes, ORDER BY, DISTINCT and joins.
CREATE FUNCTION guid_cmp(guid, guid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_guid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_lt(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_le(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_eq(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_ne(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_ge(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_gt(guid, guid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_guid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_hash(guid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_guid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION guid_hash_extended(guid, int8) RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_guid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE FUNCTION luid_cmp(luid, luid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_luid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_lt(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_le(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_eq(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_ne(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_ge(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_gt(luid, luid) RETURNS bool
    AS 'MODULE_PATHNAME', 'kguid_luid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_hash(luid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_luid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION luid_hash_extended(luid, int8) RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_luid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR < (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = guid, RIGHTARG = guid, PROCEDURE = guid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

CREATE OPERATOR < (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = luid, RIGHTARG = luid, PROCEDURE = luid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

CREATE OPERATOR CLASS guid_ops DEFAULT FOR TYPE guid USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 guid_cmp(guid, guid);
CREATE OPERATOR CLASS guid_ops DEFAULT FOR TYPE guid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 guid_hash(guid),
    FUNCTION 2 guid_hash_extended(guid, int8);
CREATE OPERATOR CLASS luid_ops DEFAULT FOR TYPE luid USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 luid_cmp(luid, luid);
CREATE OPERATOR CLASS luid_ops DEFAULT FOR TYPE luid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 luid_hash(luid),
    FUNCTION 2 luid_hash_extended(luid, int8);

-- min and max, which an index answers (SORTOP).
CREATE FUNCTION guid_smaller(guid, guid) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_larger(guid, guid) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_smaller(luid, luid) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_larger(luid, luid) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(guid) (SFUNC = guid_smaller, STYPE = guid, SORTOP = <,
    COMBINEFUNC = guid_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(guid) (SFUNC = guid_larger, STYPE = guid, SORTOP = >,
    COMBINEFUNC = guid_larger, PARALLEL = SAFE);
CREATE AGGREGATE min(luid) (SFUNC = luid_smaller, STYPE = luid, SORTOP = <,
    COMBINEFUNC = luid_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(luid) (SFUNC = luid_larger, STYPE = luid, SORTOP = >,
    COMBINEFUNC = luid_larger, PARALLEL = SAFE);

-- Casts. To and from text work through the types' input and output.
CREATE FUNCTION guid(bytea) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bytea(guid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'kguid_guid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid(bytea) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bytea(luid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'kguid_luid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid(guid) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_guid_to_luid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid(int8) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION int8(luid) RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_luid_to_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (bytea AS guid) WITH FUNCTION guid(bytea);
CREATE CAST (guid AS bytea) WITH FUNCTION bytea(guid);
CREATE CAST (bytea AS luid) WITH FUNCTION luid(bytea);
CREATE CAST (luid AS bytea) WITH FUNCTION bytea(luid);
CREATE CAST (guid AS luid) WITH FUNCTION luid(guid);
CREATE CAST (int8 AS luid) WITH FUNCTION luid(int8);
CREATE CAST (luid AS int8) WITH FUNCTION int8(luid);

-- The parts of an id, and the smallest id of a time for range queries.
CREATE FUNCTION guid_time(guid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'kguid_guid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_node(guid) RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_guid_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_seq(guid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_guid_seq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_drift(guid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_guid_drift' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_time(luid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'kguid_luid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_seq(luid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_luid_seq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_drift(luid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_luid_drift' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_from_time(timestamptz, node int8, drift int4 DEFAULT 3) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_from_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION guid_from_time(timestamptz) RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_from_time_here' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_from_time(timestamptz, drift int4 DEFAULT 3) RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_from_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Ids from the server's clock (needs shared_preload_libraries = 'kguid').
CREATE FUNCTION guid_generate() RETURNS guid
    AS 'MODULE_PATHNAME', 'kguid_guid_generate' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION luid_generate() RETURNS luid
    AS 'MODULE_PATHNAME', 'kguid_luid_generate' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION kguid_node() RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_node' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- v3's 128-bit id (a UUIDv8) as the built-in uuid, whose order is its
-- bytes' and so the id's: ids from the server's v3 clock, and their parts.
CREATE FUNCTION xuid_generate() RETURNS uuid
    AS 'MODULE_PATHNAME', 'kguid_xuid_generate' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION xuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'kguid_xuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION xuid_node(uuid) RETURNS int8
    AS 'MODULE_PATHNAME', 'kguid_xuid_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION xuid_seq(uuid) RETURNS int4
    AS 'MODULE_PATHNAME', 'kguid_xuid_seq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION xuid_from_time(timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'kguid_xuid_from_time' LANGUAGE C STABLE STRICT PARALLEL SAFE;
