-- Stores horizon ARGV[3] (Unix ns) in the fence KEYS[2] if the claim KEYS[1]
-- holds token ARGV[1] and the fence's version is still ARGV[2] ('0': no
-- fence), with a new version from the counter KEYS[3].
--
-- ARGV[4] holder
-- Replies:
--   {1, version}       stored
--   {2, ns, version}   nothing written: the fence is no longer the one seen
--                      ('', '' if there is none)
--   {0}                nothing written: the claim is gone or another holder's
--   {-1, key}          key holds what no lease wrote
local claim = claim_at(KEYS[1])
if not claim then
  return {-1, KEYS[1]}
end
if claim == 'free' or claim[1] ~= ARGV[1] then
  return {0}
end
local f = fields(KEYS[2], 'ns', 'version')
if not f or not fence_ok(f) then
  return {-1, KEYS[2]}
end
if (f[2] or '0') ~= ARGV[2] then
  return {2, f[1] or '', f[2] or ''}
end
local version = next_counter(KEYS[3])
if not version then
  return {-1, KEYS[3]}
end
redis.call('HSET', KEYS[2], 'ns', ARGV[3], 'version', version, 'holder', ARGV[4])
return {1, version}
