//! The training step: masked policy cross-entropy, WDL cross-entropy and a weighted margin
//! loss, AdamW with weight decay and gradient clipping, and a learning-rate schedule.

use burn::grad_clipping::GradientClippingConfig;
use burn::module::{ModuleMapper, ModuleVisitor, Param};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::Bytes;
use burn::tensor::activation::log_softmax;
use serde::{Deserialize, Serialize};

use crate::error::NnError;
use crate::model::{Net, NetConfig, margin_target};

/// How the learning rate moves over the steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LrSchedule {
    Constant,
    /// Cosine decay from the base rate to `min_factor * base` at `total_steps`.
    Cosine {
        total_steps: u64,
        min_factor: f64,
    },
    /// Multiply by `gamma` every `every` steps.
    Step {
        every: u64,
        gamma: f64,
    },
    /// Cosine decay over the run's progress (0 at its start, 1 at its limit; see
    /// [`Learner::set_run_progress`]) from the base rate to `min_factor * base`. A run bounded
    /// by wall time cannot know its step count in advance, so a step schedule would either end
    /// its decay early or never reach the low rate that settles the network.
    CosineOverRun {
        min_factor: f64,
    },
}

/// Optimiser settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OptimConfig {
    pub learning_rate: f64,
    pub weight_decay: f32,
    pub warmup_steps: u64,
    pub schedule: LrSchedule,
    /// Largest gradient norm; 0 turns clipping off.
    pub grad_clip: f32,
    /// Weight of the margin loss beside the policy and value losses (its squared error, or
    /// its cross-entropy for a distributional head, [`NetConfig::margin_bins`]).
    pub margin_weight: f32,
}

impl Default for OptimConfig {
    fn default() -> Self {
        OptimConfig {
            learning_rate: 2e-3,
            weight_decay: 1e-4,
            warmup_steps: 100,
            schedule: LrSchedule::Constant,
            grad_clip: 1.0,
            margin_weight: 0.25,
        }
    }
}

impl OptimConfig {
    /// The learning rate at `step` (0-based) when the run is `progress` (0 to 1) of the way
    /// to its limit: linear warm-up, then the schedule.
    pub fn learning_rate_at(&self, step: u64, progress: f64) -> f64 {
        let base = self.learning_rate;
        if step < self.warmup_steps {
            return base * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let t = step - self.warmup_steps;
        match &self.schedule {
            LrSchedule::Constant => base,
            LrSchedule::Cosine { total_steps, min_factor } => {
                let span = total_steps.saturating_sub(self.warmup_steps).max(1);
                let frac = (t as f64 / span as f64).min(1.0);
                let cos = 0.5 * (1.0 + (std::f64::consts::PI * frac).cos());
                base * (min_factor + (1.0 - min_factor) * cos)
            }
            LrSchedule::Step { every, gamma } => base * gamma.powi((t / (*every).max(1)) as i32),
            LrSchedule::CosineOverRun { min_factor } => {
                let frac = if progress.is_finite() { progress.clamp(0.0, 1.0) } else { 0.0 };
                let cos = 0.5 * (1.0 + (std::f64::consts::PI * frac).cos());
                base * (min_factor + (1.0 - min_factor) * cos)
            }
        }
    }
}

/// The minibatch, defined without burn so self-play can fill it (`mancala-encoding`).
use mancala_encoding::Batch;

/// Loss terms of one step, for logging.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Losses {
    pub policy: f32,
    pub value: f32,
    /// Squared error of the predicted margin (for a distributional head, of its mean).
    pub margin: f32,
    pub total: f32,
    /// Mean entropy of the network's policy (nats).
    pub policy_entropy: f32,
    /// Share of rows whose most likely WDL class is the target's.
    pub value_accuracy: f32,
    pub learning_rate: f64,
}

/// The network being trained, its optimiser and its step count.
pub struct Learner {
    pub net_config: NetConfig,
    pub optim_config: OptimConfig,
    /// Always `Some` between steps; taken out while the optimiser consumes it.
    model: Option<Net>,
    optim: ModuleOptimizer,
    device: Device,
    step: u64,
    /// How far the run is towards its limit, 0 to 1, for [`LrSchedule::CosineOverRun`].
    run_progress: f64,
    /// The moving average of the weights, when one is kept ([`Learner::keep_average`]).
    average: Option<WeightAverage>,
}

/// An exponential moving average of a network's weights over about `steps` optimiser steps
/// (decay `1 - 1/steps`), as KataGo and Lc0 publish their networks: the optimiser's last step
/// carries the noise of its last batches, and the average of the recent weights plays better
/// than any one of them. The values are every float parameter flattened in the module's visit
/// order, which is fixed by its structure, so the average can be written back into a copy of
/// the same network.
#[derive(Clone, Debug)]
pub struct WeightAverage {
    steps: u64,
    values: Vec<f32>,
}

impl WeightAverage {
    /// Starts the average at `net`'s weights.
    pub fn new(steps: u64, net: &Net) -> Self {
        WeightAverage { steps: steps.max(1), values: flat_weights(net) }
    }

    /// The decay at the learner's `step`: `1 - 1/steps`, but lower over the first steps of a
    /// fresh network (`(1 + step) / (10 + step)`), so the average does not hold on to the
    /// random initial weights for thousands of steps.
    pub fn decay(&self, step: u64) -> f32 {
        let long = 1.0 - 1.0 / self.steps as f64;
        let early = (1.0 + step as f64) / (10.0 + step as f64);
        long.min(early) as f32
    }

    /// Moves the average towards `net`'s weights after the learner's `step`.
    pub fn update(&mut self, net: &Net, step: u64) {
        let d = self.decay(step);
        let mut at = 0;
        net.visit(&mut Flatten(|x: &[f32]| {
            for (avg, w) in self.values[at..at + x.len()].iter_mut().zip(x) {
                *avg = d * *avg + (1.0 - d) * w;
            }
            at += x.len();
        }));
    }

    /// A copy of `net` (same structure) with the averaged weights.
    pub fn apply(&self, net: Net) -> Net {
        net.map(&mut Unflatten { values: &self.values, at: 0 })
    }
}

/// Every float parameter of `net`, flattened in visit order.
pub fn flat_weights(net: &Net) -> Vec<f32> {
    let mut out = Vec::new();
    net.visit(&mut Flatten(|x: &[f32]| out.extend_from_slice(x)));
    out
}

/// The mean of several networks' weights, in the structure of the first: the average of a
/// run's last candidates (`export --average`), which the optimiser's noise moves around a
/// better point than any one of them (stochastic weight averaging).
///
/// # Errors
/// [`NnError::Average`] when `nets` is empty or two of them differ in size.
pub fn mean_weights(nets: &[Net]) -> Result<Net, NnError> {
    let (first, rest) = nets.split_first().ok_or_else(|| NnError::Average("no networks to average".into()))?;
    let mut sum: Vec<f64> = flat_weights(first).into_iter().map(f64::from).collect();
    for (i, net) in rest.iter().enumerate() {
        let values = flat_weights(net);
        if values.len() != sum.len() {
            return Err(NnError::Average(format!(
                "network {} has {} weights, the first has {}",
                i + 2,
                values.len(),
                sum.len()
            )));
        }
        for (s, v) in sum.iter_mut().zip(values) {
            *s += f64::from(v);
        }
    }
    let n = nets.len() as f64;
    let values: Vec<f32> = sum.into_iter().map(|s| (s / n) as f32).collect();
    Ok(first.clone().map(&mut Unflatten { values: &values, at: 0 }))
}

/// Hands each float parameter's values, in visit order, to a closure.
struct Flatten<F: FnMut(&[f32])>(F);

impl<F: FnMut(&[f32])> ModuleVisitor for Flatten<F> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let data = param.val().into_data();
        let values = data.as_slice::<f32>().expect("network parameters are f32");
        (self.0)(values);
    }
}

/// Replaces each float parameter, in visit order, by the next values of a flat vector.
struct Unflatten<'a> {
    values: &'a [f32],
    at: usize,
}

impl ModuleMapper for Unflatten<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        param.map(|t| {
            let shape = t.shape();
            let n = shape.num_elements();
            let values = self.values[self.at..self.at + n].to_vec();
            self.at += n;
            Tensor::from_data(TensorData::new(values, shape), &t.device())
        })
    }
}

impl Learner {
    /// A fresh network on `device` (must be an autodiff device), seeded.
    pub fn new(net_config: NetConfig, optim_config: OptimConfig, device: Device, seed: u64) -> Self {
        let model = net_config.init_seeded(&device, seed);
        Self::from_model(net_config, optim_config, device, model, 0)
    }

    /// Continues training `model` from `step`.
    pub fn from_model(net_config: NetConfig, optim_config: OptimConfig, device: Device, model: Net, step: u64) -> Self {
        // fork (not to_device) makes the parameters fresh leaves that gradients can reach.
        let model = model.fork(&device).train();
        let optim = Self::make_optim(&optim_config);
        Learner { net_config, optim_config, model: Some(model), optim, device, step, run_progress: 0.0, average: None }
    }

    /// Keeps a moving average of the weights over about `steps` steps from now on, started at
    /// `start` (the average a restart point stored) or else at the current weights; 0 keeps
    /// none. [`Learner::published_model`] then gives the average.
    pub fn keep_average(&mut self, steps: u64, start: Option<&Net>) {
        self.average = (steps > 0).then(|| WeightAverage::new(steps, start.unwrap_or(self.model())));
    }

    pub fn average(&self) -> Option<&WeightAverage> {
        self.average.as_ref()
    }

    /// The network to publish, without autodiff, on `device`: the moving average of the
    /// weights when one is kept, else the weights themselves.
    pub fn published_model(&self, device: &Device) -> Net {
        let net = self.inference_model(device);
        match &self.average {
            Some(avg) => avg.apply(net),
            None => net,
        }
    }

    fn make_optim(c: &OptimConfig) -> ModuleOptimizer {
        let clip = (c.grad_clip > 0.0).then_some(GradientClippingConfig::Norm(c.grad_clip));
        AdamWConfig::new().with_weight_decay(c.weight_decay).with_grad_clipping(clip).init()
    }

    pub fn step(&self) -> u64 {
        self.step
    }

    /// Tells the learner how far the run is towards its limit (0 to 1); only
    /// [`LrSchedule::CosineOverRun`] reads it.
    pub fn set_run_progress(&mut self, progress: f64) {
        self.run_progress = progress;
    }

    pub fn model(&self) -> &Net {
        self.model.as_ref().expect("the model is present between steps")
    }

    /// The model without autodiff, for inference on `device`.
    pub fn inference_model(&self, device: &Device) -> Net {
        self.model().valid().to_device(device)
    }

    /// The optimiser state as bytes (for checkpoints).
    ///
    /// # Errors
    /// When burn cannot serialise the state.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, NnError> {
        let bytes = self.optim.into_bytes().map_err(|e| NnError::Burn(e.to_string()))?;
        Ok(bytes.to_vec())
    }

    /// Restores the optimiser state written by [`Learner::optimizer_bytes`].
    ///
    /// # Errors
    /// When the bytes are not an optimiser state for this model.
    pub fn load_optimizer_bytes(&mut self, bytes: Vec<u8>) -> Result<(), NnError> {
        let optim = Self::make_optim(&self.optim_config);
        self.optim = optim.from_bytes(Bytes::from_bytes_vec(bytes)).map_err(|e| NnError::Burn(e.to_string()))?;
        Ok(())
    }

    /// One optimiser step on `batch`; returns the loss terms before the step.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let n = batch.n;
        let a = self.net_config.actions;
        let d = &self.device;
        let inputs = Tensor::<2>::from_data(TensorData::new(batch.inputs.clone(), [n, self.net_config.inputs()]), d);
        let legal = Tensor::<2>::from_data(TensorData::new(batch.legal.clone(), [n, a]), d);
        let target_pi = Tensor::<2>::from_data(TensorData::new(batch.policy.clone(), [n, a]), d);
        let target_wdl = Tensor::<2>::from_data(TensorData::new(batch.wdl.clone(), [n, 3]), d);
        let target_margin = Tensor::<2>::from_data(TensorData::new(batch.margin.clone(), [n, 1]), d);

        let out = self.model().forward(inputs);
        // Illegal moves get a large negative logit, so they take no probability mass.
        let logits = out.policy + (legal - 1.0) * 1e4; // [n, actions]
        let log_pi = log_softmax(logits, 1);
        let policy_loss = (target_pi * log_pi.clone()).sum_dim(1).neg().mean();
        let log_wdl = log_softmax(out.wdl, 1); // [n, 3]
        let value_loss = (target_wdl.clone() * log_wdl.clone()).sum_dim(1).neg().mean();
        let margin_loss = (out.margin - target_margin).square().mean();
        // A distributional margin head learns by cross-entropy against the final margin split
        // over the bins around it; its squared error is still what `Losses::margin` reports,
        // so runs of either head compare.
        let margin_term = match out.margin_logits {
            Some(logits) => {
                let bins = logits.dims()[1];
                let mut target = vec![0.0; n * bins];
                for (t, row) in batch.margin.iter().zip(target.chunks_exact_mut(bins)) {
                    margin_target(*t, bins, row);
                }
                let target = Tensor::<2>::from_data(TensorData::new(target, [n, bins]), d);
                (target * log_softmax(logits, 1)).sum_dim(1).neg().mean()
            }
            None => margin_loss.clone(),
        };
        let total = policy_loss.clone() + value_loss.clone() + margin_term * self.optim_config.margin_weight;

        let entropy = (log_pi.clone().exp() * log_pi).sum_dim(1).neg().mean();
        let predicted = log_wdl.argmax(1); // [n, 1]
        let wanted = target_wdl.argmax(1);
        let accuracy = predicted.equal(wanted).float().mean();

        let lr = self.optim_config.learning_rate_at(self.step, self.run_progress);
        let losses = Losses {
            policy: policy_loss.into_scalar::<f32>(),
            value: value_loss.into_scalar::<f32>(),
            margin: margin_loss.into_scalar::<f32>(),
            total: total.clone().into_scalar::<f32>(),
            policy_entropy: entropy.into_scalar::<f32>(),
            value_accuracy: accuracy.into_scalar::<f32>(),
            learning_rate: lr,
        };
        let grads = GradientsParams::from_grads(total.backward(), self.model());
        let model = self.model.take().expect("the model is present between steps");
        self.model = Some(self.optim.step(lr, model, grads));
        self.step += 1;
        if let Some(avg) = &mut self.average {
            avg.update(self.model.as_ref().expect("just stepped"), self.step);
        }
        losses
    }
}
