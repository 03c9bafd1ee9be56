//! Policy/value networks in burn for sowing games: the models (residual
//! MLP and a residual 1-D convolution tower over the pit ring), the training step, model
//! files, and [`NeuralEvaluator`], which plugs a network into the search through
//! `mancala_mcts::Evaluator` without the search knowing burn exists.

pub mod agent;
pub mod cpu;
pub mod device;
pub mod error;
pub mod evaluator;
pub mod file;
pub mod int8;
pub mod model;
#[cfg(feature = "onnx")]
pub mod onnx;
pub mod precision;
pub mod train;

pub use agent::{NeuralAgent, neural_agent};
pub use device::{DEVICES, inference_device, training_device};
pub use error::NnError;
pub use evaluator::NeuralEvaluator;
pub use file::{ModelMeta, load_model, model_bytes, model_from_bytes, read_model_file, save_model};
pub use model::{Architecture, Net, NetConfig, NetOutput, margin_from_head, margin_support, margin_target};
pub use precision::{Precision, UnknownPrecision};
pub use train::{Learner, Losses, LrSchedule, OptimConfig, WeightAverage, flat_weights, mean_weights};
