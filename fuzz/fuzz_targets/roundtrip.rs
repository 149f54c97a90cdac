//! Ids of all five types, made by `Arbitrary` from the input (valid ids
//! only): each round-trips through every form (bytes, integer, string,
//! base62, JSON, cells), its parts compose back into it, the casts between
//! types keep node, time and sequence, and strings sort as the ids do.
#![no_main]
use guid::Id;
use guid::{Guid, Luid, v3};
use libfuzzer_sys::fuzz_target;
use serde::{Serialize, de::DeserializeOwned};

/// The id serde reads back from the JSON it writes for `id`.
fn json<T: Serialize + DeserializeOwned>(id: &T) -> T {
    serde_json::from_slice(&serde_json::to_vec(id).unwrap()).unwrap()
}

/// The strings of two ids of a type sort as the ids do.
fn sorts<T: Ord + ToString>(a: T, b: T) {
    assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
}

fuzz_target!(|ids: (Guid, Luid, v3::Guid, v3::Luid, v3::Xuid)| {
    let (g, l, g3, l3, x) = ids;

    assert_eq!(g.to_string().parse::<Guid>(), Ok(g));
    assert_eq!(Guid::from_base62(g.to_base62()), Ok(g));
    assert_eq!(Guid::from_bytes(g.to_bytes()), Ok(g));
    assert_eq!(Guid::from_u128(g.to_u128()), Ok(g));
    assert_eq!(Guid::fold(4, &g.split(4).unwrap()), Ok(g));
    assert_eq!(json(&g), g);
    assert_eq!(Guid::from_parts(g.node(), g.time(), g.seq(), g.drift()), Ok(g));
    assert_eq!(Guid::from_l64(g.to_l64(), g.node() as u32), g);

    assert_eq!(l.to_string().parse::<Luid>(), Ok(l));
    assert_eq!(Luid::from_base62(l.to_base62()), Ok(l));
    assert_eq!(Luid::from_bytes(l.to_bytes()), Ok(l));
    assert_eq!(Luid::from_u64(l.to_u64()), Ok(l));
    assert_eq!(Luid::from_i64(l.to_i64()), Ok(l));
    assert_eq!(Luid::fold(4, &l.split(4).unwrap()), Ok(l));
    assert_eq!(json(&l), l);
    assert_eq!(Luid::compose(l.time(), l.seq(), l.drift()), Ok(l));
    assert_eq!(l.to_g(g.node() as u32).to_l64(), l);
    sorts(g.to_l64(), l);
    assert_eq!(g.to_l64().cmp(&l).is_lt(), g.to_l64().to_i64() < l.to_i64());

    assert_eq!(g3.to_string().parse::<v3::Guid>(), Ok(g3));
    assert_eq!(v3::Guid::from_base62(g3.to_base62()), Ok(g3));
    assert_eq!(v3::Guid::from_bytes(g3.to_bytes()), g3);
    assert_eq!(v3::Guid::from_u128(g3.to_u128()), Ok(g3));
    assert_eq!(v3::Guid::fold(4, &g3.split(4).unwrap()), Ok(g3));
    assert_eq!(json(&g3), g3);
    assert_eq!(
        v3::Guid::from_parts(g3.node(), g3.time(), g3.seq(), g3.drift()),
        Ok(g3)
    );
    let from_v2 = v3::Guid::from_v2(g);
    assert_eq!(
        (from_v2.node(), from_v2.time(), from_v2.seq()),
        (g.node(), g.time(), g.seq())
    );
    assert_eq!(v3::Luid::from_v2(l), v3::Guid::from_v2(l.to_g(0)).to_l64());
    sorts(from_v2, g3);

    assert_eq!(l3.to_string().parse::<v3::Luid>(), Ok(l3));
    assert_eq!(v3::Luid::from_base62(l3.to_base62()), Ok(l3));
    assert_eq!(v3::Luid::from_bytes(l3.to_bytes()), l3);
    assert_eq!(v3::Luid::from_i64(l3.to_i64()), l3);
    assert_eq!(json(&l3), l3);
    assert_eq!(v3::Luid::compose(l3.time(), l3.seq(), l3.drift()), Ok(l3));
    assert_eq!(l3.to_g(g3.node() as u32).to_l64(), l3);
    sorts(g3.to_l64(), l3);

    assert_eq!(x.to_string().parse::<v3::Xuid>(), Ok(x));
    assert_eq!(v3::Xuid::from_base62(x.to_base62()), Ok(x));
    assert_eq!(v3::Xuid::from_bytes(x.to_bytes()), Ok(x));
    assert_eq!(v3::Xuid::fold(4, &x.split(4).unwrap()), Ok(x));
    assert_eq!(json(&x), x);
    assert_eq!(
        v3::Xuid::compose(x.node(), x.time(), x.seq(), x.drift()),
        Ok(x)
    );
    assert_eq!(x.to_l64().to_x(x.node()), Ok(x));
    assert_eq!(v3::Guid::try_from(x).is_ok(), x.node() >> 32 == 0);
    let wide = v3::Xuid::from(g3);
    assert_eq!(
        (wide.to_l64(), wide.node()),
        (g3.to_l64(), g3.node() as u64)
    );
    assert_eq!(v3::Guid::try_from(wide), Ok(g3));
    sorts(wide, x);
});
