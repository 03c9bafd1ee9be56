use burn::prelude::*;
use std::time::Instant;

fn time<F: FnMut()>(name: &str, iters: u32, mut f: F) {
    for _ in 0..100 { f(); }
    let t = Instant::now();
    for _ in 0..iters { f(); }
    println!("{name}: {:.2} us", t.elapsed().as_secs_f64() * 1e6 / iters as f64);
}

fn main() {
    let d = Device::flex();
    let x = Tensor::<2>::ones([1, 128], &d);
    let w = Tensor::<2>::ones([128, 128], &d);
    let wt = w.clone().transpose(); // strided
    let wtc = Tensor::<2>::ones([128, 128], &d); // treat as W^T contiguous
    let xt = Tensor::<2>::ones([128, 1], &d);
    time("x[1,128] @ w", 50000, || { std::hint::black_box(x.clone().matmul(w.clone())); });
    time("x[1,128] @ w^T strided", 50000, || { std::hint::black_box(x.clone().matmul(wt.clone())); });
    time("wT[128,128] @ x[128,1]", 50000, || { std::hint::black_box(wtc.clone().matmul(xt.clone())); });
    time("mul+sum", 50000, || { std::hint::black_box((xt.clone() * w.clone()).sum_dim(0)); });
    let x2 = Tensor::<2>::ones([2, 128], &d);
    time("x[2,128] @ w", 50000, || { std::hint::black_box(x2.clone().matmul(w.clone())); });
    let x8 = Tensor::<2>::ones([8, 128], &d);
    time("x[8,128] @ w", 50000, || { std::hint::black_box(x8.clone().matmul(w.clone())); });
}
