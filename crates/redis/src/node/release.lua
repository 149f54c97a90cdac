-- Deletes the claim KEYS[1] if it holds token ARGV[1]; the fence stays.
--
-- Replies:
--   {1}         deleted
--   {0}         the claim was already gone or is another holder's
--   {-1, key}   key holds what no lease wrote
local claim = claim_at(KEYS[1])
if not claim then
  return {-1, KEYS[1]}
end
if claim == 'free' or claim[1] ~= ARGV[1] then
  return {0}
end
redis.call('DEL', KEYS[1])
return {1}
