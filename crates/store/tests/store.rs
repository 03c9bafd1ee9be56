//! The store's contract on memory and on a local directory: conditional create keeps the
//! first object, put replaces atomically, list is sorted and scoped to a folder, and errors
//! name the object.

use mancala_store::{Created, Store, StoreError};

fn contract(store: &Store) {
    assert_eq!(store.get_opt("best.json").unwrap(), None);
    match store.get("best.json") {
        Err(e @ StoreError::NotFound { .. }) => assert!(e.to_string().contains("best.json"), "{e}"),
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert_eq!(store.create("shards/w2/00000001.shard", b"first").unwrap(), Created::New);
    assert_eq!(store.create("shards/w2/00000001.shard", b"second").unwrap(), Created::Existed);
    assert_eq!(store.get("shards/w2/00000001.shard").unwrap(), b"first");
    store.create("shards/w1/00000002.shard", b"b").unwrap();
    store.create("shards/w1/00000001.shard", b"a").unwrap();
    store.create("shardsx/other", b"not in the folder").unwrap();
    let keys: Vec<String> = store.list("shards/").unwrap().into_iter().map(|e| e.key).collect();
    assert_eq!(keys, ["shards/w1/00000001.shard", "shards/w1/00000002.shard", "shards/w2/00000001.shard"]);
    assert_eq!(store.list("shards/w1").unwrap().len(), 2);
    assert!(store.list("nothing/").unwrap().is_empty());
    assert_eq!(store.list("shards/w1/").unwrap()[0].size, 1);

    store.put("best.json", b"{\"generation\":1}").unwrap();
    store.put("best.json", b"{\"generation\":2}").unwrap();
    assert_eq!(store.get("best.json").unwrap(), b"{\"generation\":2}");
    assert!(store.exists("best.json").unwrap());
    store.delete("best.json").unwrap();
    store.delete("best.json").unwrap();
    assert!(!store.exists("best.json").unwrap());

    // Folders, one level at a time; a folder's store reads and writes under short keys.
    assert_eq!(store.folders("").unwrap(), ["shards", "shardsx"]);
    assert_eq!(store.folders("shards/").unwrap(), ["w1", "w2"]);
    assert!(store.folders("nothing").unwrap().is_empty());
    let w1 = store.folder("shards").unwrap().folder("w1").unwrap();
    assert_eq!(w1.get("00000002.shard").unwrap(), b"b");
    assert_eq!(w1.describe("x"), store.describe("shards/w1/x"));
    w1.put("new", b"n").unwrap();
    assert_eq!(store.get("shards/w1/new").unwrap(), b"n");
    for bad in ["", "..", "a/b"] {
        let e = store.folder(bad).unwrap_err();
        assert!(e.to_string().contains("one folder name"), "{bad:?}: {e}");
    }
}

#[test]
fn memory_store_keeps_the_contract_and_is_shared_by_name() {
    let a = Store::open("memory://contract").unwrap();
    contract(&a);
    let b = Store::open("memory://contract").unwrap();
    assert_eq!(b.get("shards/w1/00000002.shard").unwrap(), b"b");
    let other = Store::open("memory://another").unwrap();
    assert!(other.list("shards/").unwrap().is_empty());
}

#[test]
fn local_directory_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    let store = Store::open(root.to_str().unwrap()).unwrap();
    assert_eq!(store.local_dir().unwrap(), root);
    contract(&store);
    // The objects are plain files: a person can look at a run with ls.
    assert_eq!(std::fs::read(root.join("shards/w2/00000001.shard")).unwrap(), b"first");
    let again = Store::open(&format!("file://{}", root.display())).unwrap();
    assert_eq!(again.get("shards/w1/00000001.shard").unwrap(), b"a");
}

#[test]
fn bad_urls_are_refused_by_name() {
    for (url, says) in [("s3://", "no bucket"), ("gs://bucket/x", "expected a directory"), ("", "expected a directory")]
    {
        let e = Store::open(url).unwrap_err();
        assert!(e.to_string().contains(says), "{url}: {e}");
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    let e = Store::open(file.path().join("sub").to_str().unwrap()).unwrap_err();
    assert!(e.to_string().contains("cannot create the directory"), "{e}");
}

#[test]
fn retries_only_what_can_mend() {
    use std::cell::Cell;
    use std::time::Duration;
    let store = Store::open("memory://retry").unwrap();
    let calls = Cell::new(0);
    // A missing object is permanent: no retry.
    let r = mancala_store::retry_transient(Duration::from_secs(1), &|| true, &|_, _| panic!("no retry"), || {
        calls.set(calls.get() + 1);
        store.get("missing")
    });
    assert!(matches!(r, Err(StoreError::NotFound { .. })));
    assert_eq!(calls.get(), 1);
}
