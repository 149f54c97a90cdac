-- Makes up to ARGV[2] consecutive flake ids inside Redis, from the server's
-- own clock (TIME), the shard id stored at KEYS[1] and a sequence key per
-- millisecond (ARGV[1] .. ms) that expires after a second.
--
-- KEYS[1] shard id key        ARGV[1] sequence key prefix
-- KEYS[2] last millisecond    ARGV[2] ids wanted (1 ..= max seq + 1)
--                             ARGV[3] epoch, Unix ms
--                             ARGV[4] max seq, ARGV[5] max shard, ARGV[6] max time
--
-- Replies (time in ms since the epoch):
--   {1, shard, time, first seq, count}  the ids time|shard|first .. first+count-1
--   {0, time}                           this millisecond's sequence is used up: retry
--   {-1, time, last}                    the server clock is behind a millisecond
--                                       already used: retry elsewhere
-- Ids are never repeated: a millisecond is used only while it is the latest
-- one, and its sequence never restarts.
local n = tonumber(ARGV[2])
local epoch = tonumber(ARGV[3])
local max_seq = tonumber(ARGV[4])
local shard = tonumber(redis.call('GET', KEYS[1]) or '')
if shard == nil or shard < 0 or shard > tonumber(ARGV[5]) or shard % 1 ~= 0 then
  return redis.error_reply('ERR guid: no valid shard id at ' .. KEYS[1])
end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local time = ms - epoch
if time < 0 or time > tonumber(ARGV[6]) then
  return redis.error_reply('ERR guid: server time outside the layout')
end
local last = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if ms < last then
  return {-1, time, last - epoch}
end
local key = ARGV[1] .. string.format('%.0f', ms)
local top = redis.call('INCRBY', key, n)
if top == n then
  if ms == last then
    -- The sequence of the latest millisecond expired while the clock stood
    -- still: never restart it.
    redis.call('SET', key, max_seq + 1, 'PX', 1000)
    return {0, time}
  end
  redis.call('PEXPIRE', key, 1000)
  redis.call('SET', KEYS[2], string.format('%.0f', ms))
end
local first = top - n
if first > max_seq then
  return {0, time}
end
return {1, shard, time, first, math.min(top, max_seq + 1) - first}
