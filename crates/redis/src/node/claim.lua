-- Claims the lowest node id of ARGV[2] ..= ARGV[3] that has no claim, for
-- ARGV[4] ms, with a token above every earlier one; reads its fence in the
-- same step. With ARGV[7] = '1' it only says whether a claim could be made.
--
-- KEYS[1] <P>fence   the token and version counter   ARGV[1] <P>: the key prefix
-- KEYS[2] <P>server  run id of the server last seen  ARGV[2], ARGV[3] first, last id
-- KEYS[3] <P>quiet   no claims while it lives        ARGV[4] ttl ms, ARGV[5] grace ms
--                                                    ARGV[6] holder, ARGV[7] probe
-- Keys of node id n: <P>node:n, the claim {token, ttl, holder}, expiring
-- after ttl; <P>horizon:n, the fence {ns, version, holder}, kept.
--
-- Replies:
--   {1, id, token, ns, version}  claimed; the fence as stored ('', '' if none)
--   {0}                          every id of the range has a claim
--   {2, ms}                      claims wait ms more: the keys came back from
--                                a restart or another server (a replica
--                                promoted) within the grace, so fences may
--                                be older than what their holders issued
-- A claim that finds no fence is taken: the caller makes the holder wait
-- out the grace (the store cannot tell a node id never fenced from one
-- whose keys it lost while their holder still issues ids).
--   {3}                          (probe) an id could be claimed now
--   {-1, key}                    key holds what no lease wrote
local grace = tonumber(ARGV[5])
if grace > 0 then
  local info = redis.call('INFO', 'server')
  local run = string.match(info, 'run_id:(%x+)')
  if not run then
    return redis.error_reply('ERR guid: INFO server shows no run_id')
  end
  local known = redis.pcall('GET', KEYS[2])
  if type(known) == 'table' then
    return {-1, KEYS[2]}
  end
  if known ~= run then
    redis.call('SET', KEYS[2], run)
    -- The keys survived a restart or came from another server (a replica
    -- promoted): fences written just before may be missing or older.
    if known then
      redis.call('SET', KEYS[3], '1', 'PX', grace)
    end
  end
  local quiet = redis.pcall('PTTL', KEYS[3])
  if type(quiet) ~= 'number' or quiet == -1 then
    return {-1, KEYS[3]}
  end
  if quiet > 0 then
    return {2, quiet}
  end
end
for id = tonumber(ARGV[2]), tonumber(ARGV[3]) do
  local n = string.format('%.0f', id)
  local node = ARGV[1] .. 'node:' .. n
  local claim = claim_at(node)
  if not claim then
    return {-1, node}
  end
  if claim == 'free' then
    if ARGV[7] == '1' then
      return {3}
    end
    local fence = ARGV[1] .. 'horizon:' .. n
    local f = fields(fence, 'ns', 'version')
    if not f or not fence_ok(f) then
      return {-1, fence}
    end
    local token = next_counter(KEYS[1])
    if not token then
      return {-1, KEYS[1]}
    end
    redis.call('HSET', node, 'token', token, 'ttl', ARGV[4], 'holder', ARGV[6])
    redis.call('PEXPIRE', node, ARGV[4])
    return {1, id, token, f[1] or '', f[2] or ''}
  end
end
return {0}
