-- Renews the claim KEYS[1] for its ttl if it holds token ARGV[1].
--
-- Replies:
--   {1, ttl}    renewed for ttl ms from now
--   {0}         the claim is gone or another holder's
--   {-1, key}   key holds what no lease wrote
local claim = claim_at(KEYS[1])
if not claim then
  return {-1, KEYS[1]}
end
if claim == 'free' or claim[1] ~= ARGV[1] then
  return {0}
end
redis.call('PEXPIRE', KEYS[1], claim[2])
return {1, tonumber(claim[2])}
