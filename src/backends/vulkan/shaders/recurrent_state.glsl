// Shared by recurrent_step.comp and recurrent_io.comp: the f32 state scratch holds, for S = dirs * batch *
// hidden values each, two hidden-state buffers (ping-pong by step), the LSTM cell state, the GRU
// update gate and the GRU reset hidden state r * h.
const uint H_PING = 0u, H_PONG = 1u, CELL = 2u, GRU_Z = 3u, GRU_RESET_H = 4u;
