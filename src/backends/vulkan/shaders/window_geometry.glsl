// Sliding-window geometry of conv_nchw, conv_transpose and pool as specialization
// constants from id WINDOW_ID0 on: input, kernel, stride, dilation, begin pad and output extents of
// three spatial axes (z, y, x; 1-D and 2-D windows use extent 1 and pad 0 on the leading axes).
layout(constant_id = WINDOW_ID0 + 0) const int IZ = 1;
layout(constant_id = WINDOW_ID0 + 1) const int IY = 1;
layout(constant_id = WINDOW_ID0 + 2) const int IX = 1;
layout(constant_id = WINDOW_ID0 + 3) const int KZ = 1;
layout(constant_id = WINDOW_ID0 + 4) const int KY = 1;
layout(constant_id = WINDOW_ID0 + 5) const int KX = 1;
layout(constant_id = WINDOW_ID0 + 6) const int SZ = 1;
layout(constant_id = WINDOW_ID0 + 7) const int SY = 1;
layout(constant_id = WINDOW_ID0 + 8) const int SX = 1;
layout(constant_id = WINDOW_ID0 + 9) const int DZ = 1;
layout(constant_id = WINDOW_ID0 + 10) const int DY = 1;
layout(constant_id = WINDOW_ID0 + 11) const int DX = 1;
layout(constant_id = WINDOW_ID0 + 12) const int PZ = 0;
layout(constant_id = WINDOW_ID0 + 13) const int PY = 0;
layout(constant_id = WINDOW_ID0 + 14) const int PX = 0;
layout(constant_id = WINDOW_ID0 + 15) const int OZ = 1;
layout(constant_id = WINDOW_ID0 + 16) const int OY = 1;
layout(constant_id = WINDOW_ID0 + 17) const int OX = 1;
